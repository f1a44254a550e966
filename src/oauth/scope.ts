import { InvalidScope } from '../errors/index.js';

/**
 * RFC 6749 §3.3: scope = scope-token *( SP scope-token )
 *                scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
 */

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function isScopeToken(value: string): boolean {
  return SCOPE_TOKEN.test(value);
}

/** Splits a scope string on single spaces; undefined when it breaks the §3.3 grammar. */
export function parseScope(value: string): string[] | undefined {
  const tokens = value.split(' ');
  if (!tokens.every(isScopeToken)) return undefined;
  return [...new Set(tokens)];
}

export function formatScope(tokens: readonly string[]): string {
  return tokens.join(' ');
}

/** The requested tokens that `allowed` does not contain (empty when all are allowed). */
export function scopeOutside(requested: readonly string[], allowed: readonly string[]): string[] {
  const allowedSet = new Set(allowed);
  return requested.filter((token) => !allowedSet.has(token));
}

/** A `scope` parameter's tokens; `invalid_scope` when it breaks the §3.3 grammar. */
export function parseRequestedScope(requested: string): string[] {
  const tokens = parseScope(requested);
  if (!tokens) throw new InvalidScope('scope is not a space-separated list of scope tokens (RFC 6749 section 3.3)');
  return tokens;
}

/** `invalid_scope` when a requested token is outside what the client (or its grant) may have. */
export function assertScopeAllowed(tokens: readonly string[], allowed: readonly string[]): void {
  const outside = scopeOutside(tokens, allowed);
  if (outside.length > 0) throw new InvalidScope(`scope not allowed for this client: ${outside.join(' ')}`);
}
