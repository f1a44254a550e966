import type { ClientDirectory } from '../clients/directory.js';
import { InvalidRequest } from '../errors.js';
import type { Parameters } from './request.js';

/**
 * A sign-out request (`/oauth2/logout`), in the shape of OpenID Connect RP-Initiated
 * Logout 1.0 §2 without ID tokens: `client_id`, `post_logout_redirect_uri`, `state`.
 * Pure: validated against the client directory, no HTTP.
 */
export interface LogoutRequest {
  readonly clientId?: string;
  readonly clientName?: string;
  /** Where the browser goes once signed out: one of the client's registered post_logout_redirect_uris. */
  readonly postLogoutRedirectUri?: string;
  /** Passed back to the client at postLogoutRedirectUri. */
  readonly state?: string;
}

const KNOWN = ['client_id', 'post_logout_redirect_uri', 'state'] as const;

export async function validateLogoutRequest(received: Parameters, clients: ClientDirectory): Promise<LogoutRequest> {
  const values = new Map<string, string>();
  for (const [name, value] of received) {
    if (value === '' || !(KNOWN as readonly string[]).includes(name)) continue;
    if (values.has(name)) throw new InvalidRequest(`parameter '${name}' is repeated`);
    values.set(name, value);
  }
  const clientId = values.get('client_id');
  const uri = values.get('post_logout_redirect_uri');
  const state = values.get('state');
  if (clientId === undefined) {
    // §2: without an ID token, the client must be named for its URI to be checked.
    if (uri !== undefined) throw new InvalidRequest('post_logout_redirect_uri needs client_id');
    return {};
  }
  const client = await clients.find(clientId);
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
  };
}

/** The request as the confirmation form carries it (signed), to validate again on POST. */
export function logoutParameters(request: LogoutRequest): Parameters {
  return [
    ...(request.clientId !== undefined ? [['client_id', request.clientId] as const] : []),
    ...(request.postLogoutRedirectUri !== undefined ? [['post_logout_redirect_uri', request.postLogoutRedirectUri] as const] : []),
    ...(request.state !== undefined ? [['state', request.state] as const] : []),
  ];
}
