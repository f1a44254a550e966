import t, { type Test } from 'tap';
import { clientLabel } from '../../src/metrics/client-label.js';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, signInAndDecide, codeRequest, pkcePair } from '../helpers/browser-flow.js';
import { writeKeyWith } from '../helpers/keys.js';
import { metricsListener, scrape } from '../helpers/metrics.js';
import { registrationServer } from '../helpers/registration.js';
import { approvedCode, redeem, tokenRequest, tokenStatusRequest, webTokens } from '../helpers/security-flows.js';
import { basic, buildTestServer, ISSUER, SECRETS, TEST_CLIENTS } from '../helpers/server.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';

async function authorizeServer(t: Test, env: Record<string, string> = {}) {
  const server = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), metrics: true, env });
  return { ...server, metricsApp: await metricsListener(t, server.metrics) };
}

t.test('client_id labels stay bounded', async (t) => {
  t.equal(clientLabel('service'), 'service', 'a CLIENTS_FILE client by its id');
  t.equal(clientLabel('dyn_AbCdEfGhIjKlMnOpQrStUv'), 'dynamic', 'registered clients under one value');
  t.equal(clientLabel('https://app.example.net/oauth/client.json'), 'metadata_document', 'metadata document clients under one value');
});

t.test('POST /oauth2/token: tokens issued by grant type and client, errors by code, durations by route pattern', async (t) => {
  const server = await buildTestServer(t, { clients: TEST_CLIENTS, metrics: true });
  const metrics = await metricsListener(t, server.metrics);
  const { app } = server;
  for (let i = 0; i < 2; i++)
    t.equal((await tokenRequest(app, 'service', SECRETS.service, { grant_type: 'client_credentials' })).statusCode, 200);
  const posted = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'poster', client_secret: SECRETS.poster }).toString(),
  });
  t.equal(posted.statusCode, 200);
  t.equal((await tokenRequest(app, 'service', 'wrong-secret', { grant_type: 'client_credentials' })).statusCode, 401);
  t.equal((await tokenRequest(app, 'service', SECRETS.service, { grant_type: 'urn:example:nothing' })).statusCode, 400);
  t.equal((await tokenRequest(app, 'service', SECRETS.service, { grant_type: 'client_credentials', scope: 'delete' })).statusCode, 400);
  t.equal((await app.inject({ method: 'GET', url: '/no-such-path?token=secret-value' })).statusCode, 404);

  const s = await scrape(metrics);
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'client_credentials', client_id: 'service' }), 2);
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'client_credentials', client_id: 'poster' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'invalid_client' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'unsupported_grant_type' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'invalid_scope' }), 1);
  const duration = (route: string, method: string, status: number) =>
    s.value('oauth2_http_request_duration_seconds_count', { method, route, status_code: String(status) });
  t.equal(duration('/oauth2/token', 'POST', 200), 3);
  t.equal(duration('/oauth2/token', 'POST', 401), 1);
  t.equal(duration('/oauth2/token', 'POST', 400), 2);
  t.equal(duration('unmatched', 'GET', 404), 1, 'an unknown path is counted under one label');
  t.notMatch(s.text, 'no-such-path', 'never the raw URL');
  t.notMatch(s.text, 'secret-value');
  const bucket = s.value('oauth2_http_request_duration_seconds_bucket', {
    method: 'POST',
    route: '/oauth2/token',
    status_code: '200',
    le: '+Inf',
  });
  t.equal(bucket, 3);
});

t.test('registered clients are counted under client_id="dynamic"', async (t) => {
  const server = await registrationServer(t, undefined, { DYNAMIC_CLIENT_GRANTS: 'client_credentials' }, { metrics: true });
  const metrics = await metricsListener(t, server.metrics);
  const clients = [];
  for (let i = 0; i < 2; i++) {
    const client = await server.registered(t, {
      client_name: `machine ${i}`,
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    clients.push(client);
    t.equal(
      (await tokenRequest(server.app, client.client_id, client.client_secret as string, { grant_type: 'client_credentials' })).statusCode,
      200,
    );
  }
  const first = clients[0] as (typeof clients)[number];
  t.equal((await server.manage('DELETE', first.client_id, first.registration_access_token)).statusCode, 204);
  const s = await scrape(metrics);
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'client_credentials', client_id: 'dynamic' }), 2);
  t.notMatch(s.text, 'dyn_', 'no registered client id as a label value');
  t.equal(s.value('oauth2_client_registrations_total', { action: 'registered' }), 2);
  t.equal(s.value('oauth2_client_registrations_total', { action: 'deleted' }), 1);
  t.equal(
    s.value('oauth2_http_request_duration_seconds_count', { method: 'DELETE', route: '/oauth2/register/:clientId', status_code: '204' }),
    1,
  );
});

t.test('authorization outcomes and sign-ins', async (t) => {
  const { app, metricsApp } = await authorizeServer(t, { LOGIN_MAX_FAILURES: '2', CONSENT_TTL: '0' }); // the denial sees the consent page
  await approvedCode(app);
  const { challenge } = pkcePair();
  const denied = await signInAndDecide(new InjectBrowser(app), codeRequest('web', WEB_REDIRECT, challenge), ALICE, 'deny');
  t.equal(denied.statusCode, 303);
  t.match(denied.headers.location, 'error=access_denied');
  // An unknown client: an error page; a bad response_type of a known client: sent to the client.
  t.equal((await app.inject({ method: 'GET', url: authorizeUrl({ response_type: 'code', client_id: 'nobody' }) })).statusCode, 400);
  const unsupported = await app.inject({
    method: 'GET',
    url: authorizeUrl({ response_type: 'id_token', client_id: 'web', redirect_uri: WEB_REDIRECT }),
  });
  t.equal(unsupported.statusCode, 302);

  const browser = new InjectBrowser(app, '203.0.113.99');
  const login = await browser.get(authorizeUrl(codeRequest('web', WEB_REDIRECT, challenge)));
  for (const expected of [200, 200, 429]) {
    const res = await browser.post(formAction(login.body), { ...formFields(login.body), username: 'bob', password: 'wrong' });
    t.equal(res.statusCode, expected);
  }

  const s = await scrape(metricsApp);
  t.equal(s.value('oauth2_authorizations_total', { outcome: 'approved' }), 1);
  t.equal(s.value('oauth2_authorizations_total', { outcome: 'denied' }), 1);
  t.equal(s.value('oauth2_authorizations_total', { outcome: 'error' }), 2);
  t.equal(s.value('oauth2_authorization_errors_total', { error: 'invalid_request' }), 1);
  t.equal(s.value('oauth2_authorization_errors_total', { error: 'unsupported_response_type' }), 1);
  t.equal(s.value('oauth2_signins_total', { channel: 'login_page', result: 'succeeded' }), 2);
  t.equal(s.value('oauth2_signins_total', { channel: 'login_page', result: 'failed' }), 2);
  t.equal(s.value('oauth2_signins_total', { channel: 'login_page', result: 'throttled' }), 1);
});

t.test('code replays, refresh token reuse, revocations and introspections', async (t) => {
  const { app, metricsApp } = await authorizeServer(t, { REFRESH_REUSE_GRACE: '0' });
  const grant = await approvedCode(app);
  t.equal((await redeem(app, grant)).statusCode, 200);
  t.equal((await redeem(app, grant)).statusCode, 400, 'the replay');

  const { refresh_token: first } = await webTokens(app);
  const rotated = await tokenRequest(app, 'web', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: first });
  t.equal(rotated.statusCode, 200);
  t.equal((await tokenRequest(app, 'web', WEB_SECRET, { grant_type: 'refresh_token', refresh_token: first })).statusCode, 400, 'the reuse');

  const { refresh_token: revokedRefresh } = await webTokens(app);
  t.equal((await tokenStatusRequest(app, 'revoke', 'web', WEB_SECRET, revokedRefresh)).statusCode, 200);

  const service = await tokenRequest(app, 'service', WEB_SECRET, { grant_type: 'client_credentials' });
  const accessToken = (service.json() as { access_token: string }).access_token;
  t.match((await tokenStatusRequest(app, 'introspect', 'service', WEB_SECRET, accessToken)).json(), { active: true, client_id: 'service' });
  t.equal((await tokenStatusRequest(app, 'revoke', 'service', WEB_SECRET, accessToken)).statusCode, 200);
  t.match((await tokenStatusRequest(app, 'introspect', 'service', WEB_SECRET, accessToken)).json(), { active: false });
  t.match((await tokenStatusRequest(app, 'introspect', 'service', WEB_SECRET, 'not-a-token')).json(), { active: false });

  const s = await scrape(metricsApp);
  t.equal(s.value('oauth2_authorization_code_replays_total'), 1);
  t.equal(s.value('oauth2_refresh_token_reuse_detected_total'), 1);
  t.equal(s.value('oauth2_revocations_total', { kind: 'grant', reason: 'code_replay' }), 1);
  t.equal(s.value('oauth2_revocations_total', { kind: 'grant', reason: 'refresh_reuse' }), 1);
  t.equal(s.value('oauth2_revocations_total', { kind: 'grant', reason: 'revocation_request' }), 1);
  t.equal(s.value('oauth2_revocations_total', { kind: 'access_token', reason: 'revocation_request' }), 1);
  t.equal(s.value('oauth2_introspections_total', { result: 'active' }), 1);
  t.equal(s.value('oauth2_introspections_total', { result: 'inactive' }), 2);
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'authorization_code', client_id: 'web' }), 3);
  t.equal(s.value('oauth2_tokens_issued_total', { grant_type: 'refresh_token', client_id: 'web' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'invalid_grant' }), 2);
});

t.test('signing key gauges, computed at scrape time', async (t) => {
  const { metricsApp, keystore, keysDir, clock, advance } = await authorizeServer(t);
  const now = Math.floor(clock.now / 1000);
  const [current] = keystore.jwksAt(now).keys;
  let s = await scrape(metricsApp);
  t.equal(s.value('oauth2_signing_key_age_seconds', { kid: current?.kid as string }), 60, 'the test key was created a minute ago');
  t.notOk(
    s.samples.some((x) => x.name === 'oauth2_signing_key_next_in_seconds'),
    'no successor scheduled: no sample',
  );
  t.match(s.text, '# TYPE oauth2_signing_key_next_in_seconds gauge');

  await writeKeyWith(keysDir, now, { kid: 'successor', signs_from: now + 3600 });
  t.match(await keystore.reload(), { ok: true });
  s = await scrape(metricsApp);
  t.equal(s.value('oauth2_signing_key_next_in_seconds', { kid: 'successor' }), 3600);

  await advance(3600);
  s = await scrape(metricsApp);
  t.equal(s.value('oauth2_signing_key_age_seconds', { kid: 'successor' }), 3600, 'the successor signs now');
  t.notOk(
    s.samples.some((x) => x.name === 'oauth2_signing_key_age_seconds' && x.labels.kid !== 'successor'),
    'one sample',
  );
  t.notOk(s.samples.some((x) => x.name === 'oauth2_signing_key_next_in_seconds'));
});

t.test('GET /metrics', async (t) => {
  t.test('on its own listener, never on the public one', async (t) => {
    const { app, metricsApp } = await authorizeServer(t);
    const res = await metricsApp.inject({ method: 'GET', url: '/metrics' });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    t.equal(res.headers['cache-control'], 'no-store');
    for (const name of ['oauth2_dpop_proof_failures_total', 'oauth2_store_command_errors_total', 'oauth2_signing_key_reloads_total'])
      t.match(res.body, `# TYPE ${name} counter`, `${name} is defined before it counts`);
    t.equal((await metricsApp.inject({ method: 'GET', url: '/oauth2/token' })).statusCode, 404, 'the metrics listener serves nothing else');
    t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404, 'the public listener has no /metrics');
  });

  t.test('on the public listener when METRICS_PORT equals PORT', async (t) => {
    const { app } = await authorizeServer(t, { PORT: '9464', METRICS_PORT: '9464' });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    t.equal(res.statusCode, 200);
    t.match(res.body, '# TYPE oauth2_tokens_issued_total counter');
  });

  t.test('process metrics (collectDefaultMetrics) unless turned off', async (t) => {
    const { keystore } = await authorizeServer(t);
    const withProcess = new ServerMetrics({ keys: keystore, clock: Date.now });
    const body = (await withProcess.scrape()).body;
    t.match(body, '# TYPE process_cpu_user_seconds_total counter');
    t.match(body, '# TYPE nodejs_heap_size_used_bytes gauge');
  });
});

t.test('DPoP proofs refused at the token endpoint are counted by reason (RFC 9449)', async (t) => {
  const server = await buildTestServer(t, { clients: TEST_CLIENTS, metrics: true, env: { DPOP_REQUIRE_NONCE: 'true' } });
  const metrics = await metricsListener(t, server.metrics);
  const key = await dpopKey();
  const now = Math.floor(server.clock.now / 1000);
  const htu = `${ISSUER}/oauth2/token`;
  const send = async (dpop: string) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('service', SECRETS.service), dpop },
      payload: 'grant_type=client_credentials',
    });
  const asked = await send(await dpopProof(key, { htu, iat: now }));
  const nonce = asked.headers['dpop-nonce'] as string;
  t.equal((await send(await dpopProof(key, { htu: `${ISSUER}/oauth2/revoke`, iat: now, nonce }))).statusCode, 400);
  const once = await dpopProof(key, { htu, iat: now, nonce });
  t.equal((await send(once)).statusCode, 200);
  t.equal((await send(once)).statusCode, 400);
  const s = await scrape(metrics);
  t.equal(s.value('oauth2_dpop_proof_failures_total', { reason: 'nonce' }), 1);
  t.equal(s.value('oauth2_dpop_proof_failures_total', { reason: 'htu' }), 1);
  t.equal(s.value('oauth2_dpop_proof_failures_total', { reason: 'replay' }), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'invalid_dpop_proof' }), 2);
  t.equal(s.value('oauth2_token_errors_total', { error: 'use_dpop_nonce' }), 1);
});
