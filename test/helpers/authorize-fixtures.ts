import { hashClientSecret } from '../../src/clients/secret.js';
import { UserRegistry } from '../../src/users/registry.js';
import { cheapPasswordHash } from './passwords.js';

export const WEB_SECRET = 'web-secret-0123456789abcdefghijklmnopqrstuvwxyz';
export const WEB_REDIRECT = 'https://app.example.com/callback';

/** Clients of the authorization endpoint tests. */
export const AUTHORIZE_CLIENTS = [
  {
    client_id: 'web',
    client_name: 'Example <Web> App',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: [WEB_REDIRECT, 'https://app.example.com/other?tenant=a'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read write',
  },
  {
    client_id: 'single',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: ['https://single.example.com/cb'],
    grant_types: ['authorization_code'],
    scope: 'read',
  },
  {
    client_id: 'spa',
    redirect_uris: ['https://spa.example.com/cb'],
    grant_types: ['authorization_code', 'implicit'],
    response_types: ['code', 'token'],
    scope: 'read profile',
    token_endpoint_auth_method: 'none',
  },
  {
    client_id: 'service',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['client_credentials'],
    scope: 'read',
  },
];

export const ALICE = { username: 'alice', password: 'wonderland-2026' };

/** alice (sub "user-alice"), bob (sub = username) and `user-0` … `user-<count-1>` (password `password-<i>`), with cheap hashes. */
export function testUsers(count = 0): UserRegistry {
  return UserRegistry.fromEntries([
    { username: ALICE.username, password_hash: cheapPasswordHash(ALICE.password), sub: 'user-alice' },
    { username: 'bob', password_hash: cheapPasswordHash('bob-password-1') },
    ...Array.from({ length: count }, (_, i) => ({ username: `user-${i}`, password_hash: cheapPasswordHash(`password-${i}`) })),
  ]);
}
