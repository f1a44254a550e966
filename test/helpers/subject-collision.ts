import { hashClientSecret } from '../../src/clients/secret.js';
import { cheapPasswordHash } from './passwords.js';

/** RFC 9700 §4.15.1: a client_credentials token's sub (the client id) must never be a user's sub. */

const HASH = hashClientSecret('collision-test-secret');
export const PASSWORD_HASH = cheapPasswordHash('alice-password-1');

/** The one-line refusal naming both sides. */
export const collision = (clientId: string, clients: string, username: string, users: string) =>
  `client "${clientId}" (${clients}) and user "${username}" (${users}) share the subject "${clientId}": ` +
  `the client's client_credentials tokens would carry the user's sub (RFC 9700 §4.15); change the client_id or the user's sub`;

/** A client_credentials client: its tokens carry sub = client_id. */
export const service = (clientId: string) => ({
  client_id: clientId,
  client_secret_hash: HASH,
  grant_types: ['client_credentials'],
  scope: 'read',
});
/** A client without client_credentials: never a sub. */
export const webApp = (clientId: string) => ({
  client_id: clientId,
  client_secret_hash: HASH,
  grant_types: ['authorization_code'],
  redirect_uris: ['https://app.example.com/cb'],
});
