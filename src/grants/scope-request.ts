import { InvalidScope } from '../errors.js';
import { parseScope, scopeOutside } from '../oauth/scope.js';

/**
 * Resolves the `scope` parameter of a request against what may be granted.
 * RFC 6749 §3.3: "If the client omits the scope parameter when requesting
 * authorization, the authorization server MUST either process the request using a
 * pre-defined default value or fail the request indicating an invalid scope."
 */
export function resolveRequestedScope(requested: string | undefined, allowed: readonly string[]): readonly string[] {
  if (requested === undefined) return allowed;
  const tokens = parseScope(requested);
  if (!tokens) throw new InvalidScope('scope is not a space-separated list of scope tokens (RFC 6749 §3.3)');
  const outside = scopeOutside(tokens, allowed);
  if (outside.length > 0) throw new InvalidScope(`scope not allowed for this client: ${outside.join(' ')}`);
  return tokens;
}
