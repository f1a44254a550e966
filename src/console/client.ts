import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import type { ClientSource } from '../clients/directory.js';
import type { Client } from '../clients/registry.js';
import type { Endpoints } from '../endpoints.js';
import { ADMIN_READ, ADMIN_WRITE } from '../oauth/admin-scopes.js';
import type { Signer } from '../session/signer.js';
import { CONSOLE_CLIENT_ID } from '../shared/console-client.js';
import { sha256Bytes } from '../shared/sha256.js';

/**
 * The console as a client of this server: built in (defined here, never in CLIENTS_FILE),
 * confidential, with one redirect URI, `{ISSUER}/admin/callback`. It signs in through the
 * authorization endpoint like any client, and authenticates at our own token endpoint with
 * client_secret_basic: its secret is a MAC derived from SESSION_SECRET, so every instance
 * of one deployment holds the same secret without anyone writing it down, and it never
 * leaves the process (the console calls the token endpoint in process).
 */

export { CONSOLE_CLIENT_ID } from '../shared/console-client.js';

/** What the console asks for: who signs in (OpenID Connect, for the nonce), and the admin API's scopes. */
export const CONSOLE_SCOPE: readonly string[] = Object.freeze(['openid', ADMIN_READ, ADMIN_WRITE]);

/** The console's client secret: the same on every instance that shares SESSION_SECRET. */
export function consoleClientSecret(signer: Signer): string {
  return signer.macOf('console-client', CONSOLE_CLIENT_ID);
}

export function consoleRedirectUri(endpoints: Endpoints): string {
  return `${endpoints.url('console')}/callback`;
}

/** `idTokenAlg`: the algorithm of the chain that signs access tokens, which every keys folder has (RS256 may be missing). */
export function consoleClient(endpoints: Endpoints, secret: string, idTokenAlg: SigningAlgorithm): Client {
  return Object.freeze({
    clientId: CONSOLE_CLIENT_ID,
    clientName: 'Admin console',
    clientUri: endpoints.url('console'),
    secretDigest: sha256Bytes(secret),
    redirectUris: Object.freeze([consoleRedirectUri(endpoints)]),
    grantTypes: new Set(['authorization_code', 'refresh_token'] as const),
    responseTypes: new Set(['code'] as const),
    scope: CONSOLE_SCOPE,
    authMethod: 'client_secret_basic',
    introspectAllTokens: false,
    corsOrigins: new Set<string>(),
    // First party: the operator's own pages; consent to one's own administration is not asked.
    skipConsent: true,
    idTokenSignedResponseAlg: idTokenAlg,
  });
}

/** The console as a source of the client directory, asked first: its id is reserved everywhere else. */
export function consoleClientSource(client: Client): ClientSource {
  return { find: (clientId) => (clientId === client.clientId ? client : undefined) };
}
