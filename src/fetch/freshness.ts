/**
 * How long a fetched document may be used, from its response's Cache-Control (RFC 9111
 * §5.2.2) within bounds the operator sets. CIMD §5.2: the authorization server "SHOULD
 * respect HTTP cache headers [RFC9111] when caching client metadata, but MAY define its
 * own upper and/or lower bounds on an acceptable cache lifetime as well."
 */

export interface FreshnessBounds {
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

const DIRECTIVE = /^\s*([A-Za-z-]+)\s*(?:=\s*(?:"([^"]*)"|([^\s,]*)))?\s*$/;

/**
 * Seconds the response says it stays fresh: `max-age` minus `Age` (RFC 9111 §4.2.3), 0
 * for `no-store`, `no-cache` or a malformed or repeated `max-age` (§4.2.1 allows treating
 * such a response as stale); undefined when the response says nothing.
 */
export function freshnessLifetime(cacheControl: string | undefined, age: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  const maxAges: string[] = [];
  for (const part of cacheControl.split(',')) {
    const match = DIRECTIVE.exec(part);
    if (!match) continue;
    const name = (match[1] as string).toLowerCase();
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age') maxAges.push(match[2] ?? match[3] ?? '');
  }
  if (maxAges.length === 0) return undefined;
  const maxAge = maxAges[0] as string;
  if (maxAges.length > 1 || !/^\d+$/.test(maxAge)) return 0;
  const ageSeconds = age !== undefined && /^\d+$/.test(age.trim()) ? Number(age.trim()) : 0;
  return Math.max(0, Number(maxAge) - ageSeconds);
}

/** The lifetime to cache for: what the response allows, brought within the bounds; the minimum when it says nothing. */
export function cacheLifetime(cacheControl: string | undefined, age: string | undefined, bounds: FreshnessBounds): number {
  const lifetime = freshnessLifetime(cacheControl, age) ?? bounds.minSeconds;
  return Math.min(bounds.maxSeconds, Math.max(bounds.minSeconds, lifetime));
}
