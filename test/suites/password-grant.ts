import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { buildTestServer } from '../helpers/server.js';
import type { TestStore } from '../helpers/stores.js';
import { TokenClient } from '../helpers/token-client.js';

/** The password grant's clients and server, shared by test/unit and test/redis. */

export const CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'first-party',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['password', 'refresh_token'],
    scope: 'read write',
  },
  { client_id: 'no-refresh', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['password'], scope: 'read' },
  { client_id: 'cli', grant_types: ['password'], scope: 'read', token_endpoint_auth_method: 'none' },
];

/** A server (on a fresh memory store unless given one) and its clients, each at a chosen address. */
export async function setup(t: Test, env: Record<string, string> = {}, store?: TestStore) {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), env, ...(store ? { store } : {}) });
  return {
    ...server,
    client: (id: string, secret: string | null = WEB_SECRET, ip?: string) => new TokenClient(server.app, id, secret, ip),
  };
}

export const password = (username: string, pass: string, extra: Record<string, string> = {}) => ({
  grant_type: 'password',
  username,
  password: pass,
  ...extra,
});
