import type { JWTPayload } from 'jose';
import type { ClaimValue, WorkloadRule } from './trusts.js';

/**
 * Which rule of a trust admits a workload (MCP Workload Identity Federation, "Workload Trust
 * Relationship"): `sub` exactly, or its beginning when the rule's ends with `*`; every claim
 * the rule names with exactly its value (an object in the rule: the JWT's claim is an object
 * with those members, recursively; other members do not matter). Pure.
 */

export function subjectMatches(pattern: string | undefined, sub: string): boolean {
  if (pattern === undefined) return true;
  return pattern.endsWith('*') ? sub.startsWith(pattern.slice(0, -1)) : sub === pattern;
}

function valueMatches(expected: ClaimValue, actual: unknown): boolean {
  if (typeof expected !== 'object') return actual === expected;
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
  const members = actual as Record<string, unknown>;
  return Object.entries(expected).every(([name, value]) => Object.hasOwn(members, name) && valueMatches(value, members[name]));
}

export function claimsMatch(expected: WorkloadRule['claims'], claims: Readonly<JWTPayload>): boolean {
  if (expected === undefined) return true;
  return Object.entries(expected).every(([name, value]) => Object.hasOwn(claims, name) && valueMatches(value, claims[name]));
}

/** The first rule that admits the workload with `sub` and `claims`; undefined: none does. */
export function matchingRule(rules: readonly WorkloadRule[], sub: string, claims: Readonly<JWTPayload>): WorkloadRule | undefined {
  return rules.find((rule) => subjectMatches(rule.sub, sub) && claimsMatch(rule.claims, claims));
}
