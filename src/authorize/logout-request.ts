import type { ClientDirectory } from '../clients/directory.js';
import { InvalidRequest } from '../errors/index.js';
import type { Parameters } from '../oauth/form-params.js';
import type { IdTokenHint } from '../oidc/id-token.js';

/**
 * A sign-out request (`/oauth2/logout`), OpenID Connect RP-Initiated Logout 1.0 §2:
 * `id_token_hint` (an ID token we issued, even expired) or `client_id` names the client,
 * `post_logout_redirect_uri` must be one it registered, `state` comes back, `logout_hint`
 * and `ui_locales` are accepted. Pure: validated against the client directory, no HTTP.
 */
export interface LogoutRequest {
  readonly clientId?: string;
  readonly clientName?: string;
  /** Where the browser goes once signed out: one of the client's registered post_logout_redirect_uris. */
  readonly postLogoutRedirectUri?: string;
  /** Passed back to the client at postLogoutRedirectUri. */
  readonly state?: string;
  /** The user the client signs out (its id_token_hint), shown on the confirmation page. */
  readonly hintedSub?: string;
}

const KNOWN = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'logout_hint', 'ui_locales'] as const;

export interface LogoutValidation {
  readonly clients: ClientDirectory;
  /** Verifies an id_token_hint: ours (a key we still publish), expired or not. */
  readonly verifyHint: (token: string) => Promise<IdTokenHint | undefined>;
}

/** The client the request names: by its ID token's `aud` (§2: "the Client Identifier ... MUST be ... its aud"), or by client_id. */
async function namedClient(values: ReadonlyMap<string, string>, verifyHint: LogoutValidation['verifyHint']) {
  const clientId = values.get('client_id');
  const hint = values.get('id_token_hint');
  if (hint === undefined) return { clientId, hintedSub: undefined };
  const claims = await verifyHint(hint);
  if (!claims) throw new InvalidRequest('id_token_hint is not an ID token this server issued');
  // §2: "If both client_id and id_token_hint are present, the OP MUST verify that the Client
  // Identifier from the client_id value matches the aud Claim in the ID Token."
  if (clientId !== undefined && !claims.audiences.includes(clientId))
    throw new InvalidRequest('client_id does not match the aud of id_token_hint');
  if (clientId === undefined && claims.audiences.length !== 1)
    throw new InvalidRequest('id_token_hint has several audiences: send client_id too');
  return { clientId: clientId ?? claims.audiences[0], hintedSub: claims.sub };
}

export async function validateLogoutRequest(received: Parameters, validation: LogoutValidation): Promise<LogoutRequest> {
  const values = new Map<string, string>();
  for (const [name, value] of received) {
    if (value === '' || !(KNOWN as readonly string[]).includes(name)) continue;
    if (values.has(name)) throw new InvalidRequest(`parameter '${name}' is repeated`);
    values.set(name, value);
  }
  const uri = values.get('post_logout_redirect_uri');
  const state = values.get('state');
  const { clientId, hintedSub } = await namedClient(values, validation.verifyHint);
  if (clientId === undefined) {
    // §2: without an ID token or client_id, the client must be named for its URI to be checked.
    if (uri !== undefined) throw new InvalidRequest('post_logout_redirect_uri needs id_token_hint or client_id');
    return {};
  }
  const client = await validation.clients.find(clientId);
  if (!client) throw new InvalidRequest('the client is not registered');
  // §3: "The value MUST have been previously registered with the OP" — compared exactly,
  // as redirect URIs are (RFC 9700 §4.1.3), so nobody can send a signed-out browser elsewhere.
  if (uri !== undefined && !(client.postLogoutRedirectUris ?? []).includes(uri))
    throw new InvalidRequest('post_logout_redirect_uri is not registered for this client');
  return {
    clientId,
    clientName: client.clientName ?? clientId,
    ...(uri !== undefined ? { postLogoutRedirectUri: uri } : {}),
    ...(uri !== undefined && state !== undefined ? { state } : {}),
    ...(hintedSub !== undefined ? { hintedSub } : {}),
  };
}

/** The request as the confirmation form carries it (signed), to validate again on POST: by client_id, once the hint is checked. */
export function logoutParameters(request: LogoutRequest): Parameters {
  return [
    ...(request.clientId !== undefined ? [['client_id', request.clientId] as const] : []),
    ...(request.postLogoutRedirectUri !== undefined ? [['post_logout_redirect_uri', request.postLogoutRedirectUri] as const] : []),
    ...(request.state !== undefined ? [['state', request.state] as const] : []),
  ];
}
