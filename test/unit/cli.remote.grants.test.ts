import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import type { GrantView } from '../../src/admin/grants.js';
import { newGrantId } from '../../src/tokens/opaque.js';
import { ADMIN_CLIENTS, ADMIN_SECRET, adminToken, bearer } from '../helpers/admin.js';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';
import { basic, buildTestServer, FORM_HEADERS, type TestServer } from '../helpers/server.js';

/**
 * `grants list|revoke --url`: the operator command against the real admin API of a
 * server listening on 127.0.0.1 (the grants routes, their tokens and scopes, their problems).
 */

const CLIENTS = [
  ...ADMIN_CLIENTS,
  { client_id: 'owner', client_secret_hash: hashClientSecret(ADMIN_SECRET), grant_types: ['password', 'refresh_token'], scope: 'read' },
];

/** A password grant of alice at `owner`: its grant id and refresh token. */
async function passwordGrant(server: TestServer): Promise<{ grantId: string; refresh: string }> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic('owner', ADMIN_SECRET) },
    payload: new URLSearchParams({ grant_type: 'password', username: ALICE.username, password: ALICE.password }).toString(),
  });
  const { access_token: token, refresh_token: refresh } = res.json() as { access_token: string; refresh_token: string };
  const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { grant_id: string };
  return { grantId: claims.grant_id, refresh };
}

t.test('grants through the admin API of a running server', async (t) => {
  const server = await buildTestServer(t, { clients: CLIENTS, users: testUsers(), env: { ACCESS_TOKEN_TTL: '600' } });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  const writer = await adminToken(server.app, 'operator');
  const reader = await adminToken(server.app, 'auditor');
  const first = await passwordGrant(server);
  await server.advance(1);
  const second = await passwordGrant(server);
  // When each grant ends, as the API answers it (`expires_at`, seconds).
  const answered = await server.app.inject({ method: 'GET', url: '/admin/v1/grants?sub=user-alice', headers: bearer(reader) });
  const ends = new Map((answered.json() as { items: GrantView[] }).items.map((grant) => [grant.grant_id, grant.expires_at]));
  const expires = (grantId: string) =>
    `grant=${grantId} sub=user-alice client=owner expires=${new Date((ends.get(grantId) as number) * 1000).toISOString()}`;
  const grants = (args: string[], token: string, env: Record<string, string> = {}) =>
    runCommand(['grants', ...args], { env: { ADMIN_URL: url, ADMIN_TOKEN: token, ...env } });

  t.test('list by user and by client: the lines of the store variant, soonest expiry first', async (t) => {
    for (const owner of [
      ['--sub', 'user-alice'],
      ['--client', 'owner'],
    ]) {
      const run = await grants(['list', ...owner], reader);
      t.same([run.code, run.stdout, run.stderr], [0, `${expires(first.grantId)}\n${expires(second.grantId)}\n`, ''], owner.join(' '));
    }
    const none = await grants(['list', '--sub', 'nobody'], reader);
    t.same([none.code, none.stdout, none.stderr], [0, '', '']);
  });

  t.test('a token without admin:write cannot revoke: 403, exit 1, nothing revoked', async (t) => {
    const run = await grants(['revoke', first.grantId], reader);
    t.same(
      [run.code, run.stdout, run.stderr],
      [1, '', 'error: the admin API answered 403 insufficient-scope: this request needs the scope admin:write\n'],
    );
    t.equal((await grants(['list', '--sub', 'user-alice'], reader)).stdout.split('\n').length, 3, 'both grants live');
  });

  t.test('a token the admin API does not take: 401, exit 1, never printed', async (t) => {
    const forOtherAudience = await adminToken(server.app, 'operator', {}, '');
    for (const [token, why] of [
      ['not-a-jwt', 'the access token is malformed'],
      [forOtherAudience, "the access token's aud claim is not valid here"],
    ] as const) {
      const run = await grants(['list', '--sub', 'user-alice'], token);
      t.same([run.code, run.stdout, run.stderr], [1, '', `error: the admin API answered 401 unauthorized: ${why}\n`]);
      t.notOk(run.stderr.includes(token));
    }
  });

  t.test('revoke by id (token from --token-file): the refresh token is dead; an id never issued: 404', async (t) => {
    const file = join(await tempDir(t), 'admin-token');
    await writeFile(file, `${writer}\n`, { mode: 0o600 });
    const run = await runCommand(['grants', 'revoke', first.grantId, '--url', url, '--token-file', file]);
    t.same([run.code, run.stdout, run.stderr], [0, `revoked grant=${first.grantId}\n`, '']);
    const refreshed = await server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('owner', ADMIN_SECRET) },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh }).toString(),
    });
    t.same([refreshed.statusCode, (refreshed.json() as { error: string }).error], [400, 'invalid_grant']);
    const listed = await grants(['list', '--sub', 'user-alice'], reader);
    t.same([listed.code, listed.stdout], [0, `${expires(second.grantId)}\n`]);
    const unknown = await grants(['revoke', newGrantId()], writer);
    t.same(
      [unknown.code, unknown.stdout, unknown.stderr],
      [1, '', 'error: the admin API answered 404 not-found: no such grant: never issued, expired, or not a grant id\n'],
    );
  });

  t.test('through the admin API a grant is revoked by its id only; a malformed id is refused before any request', async (t) => {
    const bySub = await grants(['revoke', '--sub', 'user-alice'], writer);
    t.same(
      [bySub.code, bySub.stdout, bySub.stderr.split('\n')[0]],
      [2, '', `error: --sub needs the servers' Redis: through the admin API a grant is revoked by its id ("grants list" names them)`],
    );
    const malformed = await grants(['revoke', 'not a grant'], writer);
    t.same(
      [malformed.code, malformed.stdout, malformed.stderr],
      [1, '', 'error: no such grant: "not a grant" is not a grant id (22 characters: A-Z, a-z, 0-9, - and _)\n'],
    );
    t.equal((await grants(['list', '--sub', 'user-alice'], reader)).stdout, `${expires(second.grantId)}\n`, 'nothing revoked');
  });
});
