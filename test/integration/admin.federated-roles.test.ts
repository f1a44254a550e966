import { randomUUID } from 'node:crypto';
import { decodeJwt, type JWTPayload } from 'jose';
import t, { type Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { ADMIN_API, bearer } from '../helpers/admin.js';
import { WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { basic, FORM_HEADERS, ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { ACCOUNTS, type Federation, federatedCode, federation } from '../helpers/upstream-fixtures.js';
import { signedByUpstream } from '../helpers/upstream-oidc.js';

/**
 * A federated user's role `admin` comes from their provider's `roles` rule, decided on what
 * the provider says: at sign-in (node-oidc-provider as the upstream, kept in the session),
 * and on an ID-JAG's claims. bob is in the group `staff`, ada is not.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CONSOLE = {
  client_id: 'console',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  redirect_uris: [WEB_REDIRECT],
  grant_types: ['authorization_code', JWT_BEARER],
  scope: 'openid admin:read admin:write',
};

async function setup(t: Test): Promise<Federation> {
  return federation(t, {
    store: await memoryStore(t),
    clients: [CONSOLE],
    providers: (u) => [
      u.providerEntry('corp', {
        name: 'Corporate SSO',
        scope: 'openid email profile groups',
        id_jag: true,
        roles: { admin: { groups: 'staff' } },
      }),
    ],
  });
}

async function tokenRequest(f: Federation, params: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await f.server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('console', WEB_SECRET) },
    payload: new URLSearchParams(params).toString(),
  });
  return res.json() as Record<string, unknown>;
}

t.test('sign-in through a provider: the role decided by its rule, carried in the session', async (t) => {
  const f = await setup(t);
  const signIn = async (login: string) => {
    const flow = await federatedCode(
      f,
      { login },
      { extra: { client_id: 'console', scope: 'openid admin:read admin:write' }, resources: [ADMIN_API] },
    );
    const code = flow.location.searchParams.get('code') as string;
    return tokenRequest(f, { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: flow.verifier });
  };
  const bob = await signIn(ACCOUNTS.bob.sub);
  t.equal(bob.scope, 'admin:read admin:write', 'bob (group staff): granted');
  t.equal(decodeJwt(bob.access_token as string).sub, federatedSubject('corp', ACCOUNTS.bob.sub));
  const keys = await f.server.app.inject({ method: 'GET', url: '/admin/v1/keys', headers: bearer(bob.access_token as string) });
  t.equal(keys.statusCode, 200, 'and may call the admin API');
  const ada = await signIn(ACCOUNTS.ada.sub);
  t.equal(typeof ada.id_token, 'string', 'ada: the grant kept openid');
  t.equal(ada.scope, undefined, 'ada (not in staff): the admin scopes dropped');
});

t.test('an ID-JAG: the same rule on its claims', async (t) => {
  const f = await setup(t);
  const now = Math.floor(Date.now() / 1000);
  const idJag = (sub: string, groups: string[]) =>
    signedByUpstream({
      iss: f.upstream.issuer,
      sub,
      aud: ISSUER,
      client_id: 'console',
      jti: randomUUID(),
      iat: now,
      exp: now + 300,
      resource: ADMIN_API,
      scope: 'admin:read admin:write',
      groups,
    } as JWTPayload);
  const exchange = async (assertion: string) => tokenRequest(f, { grant_type: JWT_BEARER, assertion });
  t.equal((await exchange(await idJag(ACCOUNTS.bob.sub, ['staff']))).scope, 'admin:read admin:write');
  const ada = await exchange(await idJag(ACCOUNTS.ada.sub, ['mcp-users']));
  t.equal(typeof ada.access_token, 'string', 'a token all the same');
  t.equal(ada.scope, undefined, 'without the admin scopes');
});
