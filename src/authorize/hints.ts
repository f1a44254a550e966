import { InvalidRequest } from '../errors/index.js';
import type { IdTokens } from '../oidc/id-token.js';
import type { AuthorizationRequest } from './request.js';

/** The hints of an authorization request about who should sign in (OpenID Connect Core §3.1.2.1). */

/**
 * "id_token_hint: ID Token previously issued by the Authorization Server being passed as a
 * hint about the End-User's current or past authenticated session with the Client." Ours
 * (expired or not) and issued to this client, or the request is refused at the client.
 */
export async function expectedSubject(request: AuthorizationRequest, idTokens: Pick<IdTokens, 'verifyHint'>): Promise<string | undefined> {
  if (request.idTokenHint === undefined) return undefined;
  const hint = await idTokens.verifyHint(request.idTokenHint);
  if (!hint || !hint.audiences.includes(request.client.clientId)) {
    throw new InvalidRequest('id_token_hint is not an ID token this server issued to this client').redirectingTo(request);
  }
  return hint.sub;
}

/** Who a signed-in subject is, to compare with `login_hint`. */
export interface HintedUsers {
  bySub(sub: string): { readonly username: string; readonly claims: Readonly<Record<string, unknown>> } | undefined;
}

/** Whether `login_hint` names the signed-in user: their sub, username or email. */
export function isHintedUser(hint: string, sub: string, users: HintedUsers): boolean {
  const user = users.bySub(sub);
  const email = user?.claims.email;
  return hint === sub || hint === user?.username || (typeof email === 'string' && hint.toLowerCase() === email.toLowerCase());
}
