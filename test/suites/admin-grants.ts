import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { encodeCursor } from '../../src/admin/paging.js';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { ADMIN_CLIENTS, ADMIN_SECRET, adminToken, bearer, expectProblem } from '../helpers/admin.js';
import { capturedLogger } from '../helpers/logs.js';
import { basic, buildTestServer, FORM_HEADERS, type TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * GET /admin/v1/grants and DELETE /admin/v1/grants/{grant_id}: what `grants list` and
 * `grants revoke <id>` do, through the API, paged, audited. The same on every store.
 */

const CLIENTS = [
  ...ADMIN_CLIENTS,
  ...['owner', 'other'].map((client_id) => ({
    client_id,
    client_secret_hash: hashClientSecret(ADMIN_SECRET),
    grant_types: ['password'],
    scope: 'read',
  })),
];

/** A password grant of `username` at `client`: its grant id (the access token's grant_id). */
async function passwordGrant(server: TestServer, client: string, username: string, password: string): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(client, ADMIN_SECRET) },
    payload: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });
  const token = (res.json() as { access_token: string }).access_token;
  return (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { grant_id: string }).grant_id;
}

export function adminGrantsSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`the admin API's grants (${name})`, async (t) => {
    const logs = capturedLogger('info');
    const server = await buildTestServer(t, {
      clients: CLIENTS,
      users: testUsers(),
      store: await open(t),
      env: { ACCESS_TOKEN_TTL: '600' },
      metrics: true,
      logger: logs.logger,
    });
    const { app, clock, advance } = server;
    // One second apart, so their expiries order them.
    const grants: { id: string; sub: string; client: string; expires: number; granted: number }[] = [];
    for (const [client, username, password, sub] of [
      ['owner', ALICE.username, ALICE.password, 'user-alice'],
      ['owner', 'bob', 'bob-password-1', 'bob'],
      ['other', ALICE.username, ALICE.password, 'user-alice'],
      ['owner', ALICE.username, ALICE.password, 'user-alice'],
    ] as const) {
      const id = await passwordGrant(server, client, username, password);
      grants.push({ id, sub, client, expires: Math.ceil(clock.now / 1000 + 600), granted: Math.floor(clock.now / 1000) });
      await advance(1);
    }
    // What each grant is for, and when it was granted, as the grant index keeps them.
    const view = (g: (typeof grants)[number]) => ({
      grant_id: g.id,
      sub: g.sub,
      client_id: g.client,
      expires_at: g.expires,
      scope: ['read'],
      resources: [],
      granted_at: g.granted,
    });
    const [aliceOwner, bobOwner, aliceOther, aliceOwnerAgain] = grants as [
      (typeof grants)[number],
      (typeof grants)[number],
      (typeof grants)[number],
      (typeof grants)[number],
    ];
    const reader = bearer(await adminToken(app, 'auditor'));
    const writer = bearer(await adminToken(app, 'operator'));
    const list = async (query: string, headers = reader) => {
      const res = await app.inject({ method: 'GET', url: `/admin/v1/grants?${query}`, headers });
      t.equal(res.statusCode, 200, `GET /admin/v1/grants?${query}`);
      t.equal(res.headers['content-type'], 'application/json');
      return res.json() as unknown;
    };

    t.test('by user, by client, by both; soonest expiry first', async (t) => {
      t.same(await list('sub=user-alice'), { items: [aliceOwner, aliceOther, aliceOwnerAgain].map(view) });
      t.same(await list('client_id=owner'), { items: [aliceOwner, bobOwner, aliceOwnerAgain].map(view) });
      t.same(await list('sub=user-alice&client_id=other'), { items: [view(aliceOther)] });
      t.same(await list('sub=nobody'), { items: [] });
      expectProblem(t, await app.inject({ method: 'GET', url: '/admin/v1/grants', headers: reader }), {
        status: 400,
        type: 'validation',
        title: 'The request is not valid',
        detail: 'grants are listed by user or by client: give sub, client_id, or both',
        errors: [{ field: 'sub', problem: 'give sub or client_id' }],
      });
    });

    t.test('paged with limit and cursor', async (t) => {
      const first = await list('client_id=owner&limit=2');
      t.same(first, { items: [aliceOwner, bobOwner].map(view), next: encodeCursor([bobOwner.expires, bobOwner.id]) });
      t.same(await list(`client_id=owner&limit=2&cursor=${(first as { next: string }).next}`), { items: [view(aliceOwnerAgain)] });
    });

    t.test('DELETE revokes one grant, audited; a grant the store does not know is not-found', async (t) => {
      const res = await app.inject({ method: 'DELETE', url: `/admin/v1/grants/${aliceOther.id}`, headers: writer });
      t.equal(res.statusCode, 204);
      t.equal(res.body, '');
      t.equal(await server.store.isGrantRevoked(aliceOther.id), true, 'marked revoked in the store');
      t.same(await list('sub=user-alice'), { items: [aliceOwner, aliceOwnerAgain].map(view) }, 'no longer listed');
      const audit = logs
        .lines()
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.audit === true && (line.event === 'admin.changed' || line.event === 'grant.revoked'))
        .map(({ event, actor, entity, id, action, fields, grantId, reason }) => ({
          event,
          actor,
          entity,
          id,
          action,
          fields,
          grantId,
          reason,
        }));
      t.same(audit, [
        { event: 'grant.revoked', grantId: aliceOther.id, reason: 'administrator' },
        { event: 'admin.changed', actor: { client_id: 'operator' }, entity: 'grant', id: aliceOther.id, action: 'revoked', fields: [] },
      ]);
      const { body } = (await server.metrics?.scrape()) ?? { body: '' };
      t.match(body, /^oauth2_admin_changes_total\{entity="grant",action="revoked"\} 1$/m);
      t.match(body, /^oauth2_revocations_total\{kind="grant",reason="administrator"\} 1$/m);
      for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-grant-id', aliceOther.id.slice(1)]) {
        expectProblem(t, await app.inject({ method: 'DELETE', url: `/admin/v1/grants/${id}`, headers: writer }), {
          status: 404,
          type: 'not-found',
          title: 'Not found',
          detail: 'no such grant: never issued, expired, or not a grant id',
        });
      }
    });
  });
}
