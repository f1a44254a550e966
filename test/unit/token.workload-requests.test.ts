import { decodeJwt } from 'jose';
import t from 'tap';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { capturedLogger } from '../helpers/logs.js';
import { metricsListener, scrape } from '../helpers/metrics.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, SECRETS } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';
import { spiffeIssuer } from '../helpers/workload-issuers.js';
import { DEPLOY, JWT_BEARER, MCP, REFUSED, RESOURCES, workloadSetup } from '../suites/workload-identity.js';

/**
 * The JWT bearer grant of workloads at the token endpoint, beyond what each platform shows
 * (test/suites/workload-identity.ts): how a request is told from a client's, that every other
 * grant still needs its client, the request's parameters, scope and resources, subjects that
 * would pass for others', DPoP, where keys may be fetched from, the metadata and the metrics.
 */

const WWW_AUTHENTICATE = `Basic realm="${ISSUER}", charset="UTF-8"`;
const CLIENT_REQUIRED = {
  status: 401,
  error: 'invalid_client',
  description: 'client authentication is required',
  headers: { 'www-authenticate': WWW_AUTHENTICATE },
};
const nowOf = (clock: { now: number }) => () => Math.floor(clock.now / 1000);
const body = (res: { json(): unknown }) => res.json() as Record<string, unknown>;

t.test('a workload JWT with client authentication of any kind: invalid_request, and nothing verified', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  const jwt = await s.spiffe.sign();
  const mixed = {
    status: 400,
    error: 'invalid_request',
    description: 'a workload assertion is sent without any client authentication: no client_id, no client credentials',
  };
  expectOAuthError(t, await s.token(jwt, {}, { authorization: basic('service', SECRETS.service) }), mixed);
  expectOAuthError(t, await s.token(jwt, { client_id: 'service', client_secret: SECRETS.service }), mixed);
  expectOAuthError(t, await s.token(jwt, { client_id: 'spa' }), mixed);
  expectOAuthError(
    t,
    await s.token(jwt, { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt }),
    mixed,
  );
  t.same(s.audit('workload.refused'), [], 'not a refused workload: a malformed request');
  t.same(s.audit('client.authentication_failed'), [], 'no client was checked');
  // The same JWT alone is still good: nothing spent it.
  t.equal((await s.token(jwt)).statusCode, 200);
});

t.test('every other request still needs its client; an ID-JAG keeps its own path', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  for (const grant_type of [
    'client_credentials',
    'authorization_code',
    'refresh_token',
    'password',
    'urn:ietf:params:oauth:grant-type:token-exchange',
  ]) {
    const res = await s.server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: new URLSearchParams({ grant_type, assertion: await s.spiffe.sign(), resource: MCP }).toString(),
    });
    expectOAuthError(t, res, CLIENT_REQUIRED);
  }
  // Typed as an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §3.1), by a trusted workload issuer even: a client is needed.
  const idJag = await s.spiffe.sign({ client_id: 'service' }, { typ: 'oauth-id-jag+jwt' });
  expectOAuthError(t, await s.token(idJag), CLIENT_REQUIRED);
  // With its client it goes where ID-JAGs go: here no provider is trusted for them, so no such grant.
  expectOAuthError(t, await s.token(idJag, {}, { authorization: basic('service', SECRETS.service) }), {
    status: 400,
    error: 'unsupported_grant_type',
    description: 'the grant_type is not supported by this authorization server',
  });
  t.same(s.audit('workload.refused'), []);
});

t.test('without a trust, a JWT bearer request without a client is invalid_client, as before', async (t) => {
  for (const workloads of [undefined, []]) {
    const server = await buildTestServer(t, { resources: RESOURCES, ...(workloads ? { workloads } : {}) });
    const spiffe = await spiffeIssuer({ audience: ISSUER, nowSeconds: nowOf(server.clock) });
    const res = await server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await spiffe.sign(), resource: MCP }).toString(),
    });
    expectOAuthError(t, res, CLIENT_REQUIRED);
    const metadata = (await server.app.inject('/.well-known/oauth-authorization-server')).json() as Record<string, unknown>;
    t.notOk((metadata.grant_types_supported as string[]).includes(JWT_BEARER), 'the grant is not advertised');
  }
});

t.test('the request: an assertion and a resource, and a JWT that is one of the issuer’s', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  const res = await s.server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: FORM_HEADERS,
    payload: new URLSearchParams({ grant_type: JWT_BEARER, resource: MCP }).toString(),
  });
  expectOAuthError(t, res, { status: 400, error: 'invalid_request', description: "parameter 'assertion' is required" });
  const noResource = await s.server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: FORM_HEADERS,
    payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await s.spiffe.sign() }).toString(),
  });
  expectOAuthError(t, noResource, {
    status: 400,
    error: 'invalid_request',
    description: 'resource is required: the resource server the token is for (RFC 8707)',
  });
  expectOAuthError(t, await s.token('not-a-jwt'), REFUSED);
  expectOAuthError(t, await s.token(await s.spiffe.sign({}, { typ: 'at+jwt' })), REFUSED);
  expectOAuthError(t, await s.token(await s.spiffe.sign({}, { kid: 'rotated-away' })), REFUSED);
  expectOAuthError(t, await s.token(await s.spiffe.sign({ sub: '' })), REFUSED);
  t.same(s.audit('workload.refused'), [
    { event: 'workload.refused', reason: 'malformed', address: '127.0.0.1' },
    { event: 'workload.refused', reason: 'wrong_type', address: '127.0.0.1' },
    { event: 'workload.refused', reason: 'unknown_key', trust: 'mesh', address: '127.0.0.1' },
    { event: 'workload.refused', reason: 'malformed', trust: 'mesh', address: '127.0.0.1' },
  ]);
});

t.test('scope: the request’s within the rule’s, or the rule’s; resources registered when asked for', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  const chat = () =>
    s.kubernetes.sign({
      sub: 'system:serviceaccount:agents:chat-agent',
      'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'chat' } },
    });
  t.equal(body(await s.token(await chat())).scope, 'tools:call');
  t.equal(
    body(await s.token(await chat(), { scope: 'tools:call tools:list admin' })).scope,
    'tools:call',
    'tools:list is the resource’s, not the rule’s',
  );
  const jwt = await chat();
  expectOAuthError(t, await s.token(jwt, { scope: 'admin tools:list' }), {
    status: 400,
    error: 'invalid_scope',
    description: 'none of the requested scope is allowed for this workload',
  });
  // The rule names it, RESOURCES_FILE does not (a warning at start says so).
  expectOAuthError(t, await s.token(jwt, { resource: 'https://unregistered.example.com' }), {
    status: 400,
    error: 'invalid_target',
    description: 'resource is not registered at this authorization server',
  });
  // Neither answer spent the JWT's jti.
  t.equal((await s.token(jwt)).statusCode, 200);
  t.same(s.audit('workload.refused'), []);
});

t.test('a workload whose sub is a client’s id or a federated user’s sub gets no token', async (t) => {
  let now = () => Math.floor(Date.now() / 1000);
  const open = await spiffeIssuer({ audience: ISSUER, nowSeconds: () => now(), trustDomain: 'open.example' });
  const s = await workloadSetup(t, memoryStore, {
    trusts: () => [{ id: 'open', issuer: open.issuer, jwks: open.jwks, rules: [{ sub: '*', resources: [MCP], scope: 'tools:call' }] }],
  });
  now = nowOf(s.server.clock);
  // RFC 9700 §4.15.1: a token whose sub is a client_credentials client's id would pass for that client's own.
  for (const sub of ['service', 'fed_3q2x9c', 'dyn_AAAAAAAAAAAAAAAAAAAAAA'])
    expectOAuthError(t, await s.token(await open.sign({ sub })), REFUSED);
  t.equal((await s.token(await open.sign({ sub: 'spiffe://open.example/anything' }))).statusCode, 200);
  t.same(
    s.audit('workload.refused').map(({ reason, sub }) => `${String(reason)} ${String(sub)}`),
    ['subject_collision service', 'subject_collision fed_3q2x9c', 'subject_collision dyn_AAAAAAAAAAAAAAAAAAAAAA'],
  );
});

t.test(
  'keys: https and public addresses only without WORKLOAD_TRUSTS_ALLOW_INSECURE; a discovery document names its own issuer',
  async (t) => {
    const log = capturedLogger('info');
    const server = await buildTestServer(t, {
      resources: RESOURCES,
      logger: log.logger,
      env: { WORKLOAD_TRUSTS_ALLOW_INSECURE: 'false' },
      workloads: [
        { id: 'internal', issuer: 'https://127.0.0.1:9/k8s', rules: [{ sub: '*', resources: [MCP], scope: 'tools:call' }] },
        {
          id: 'keyed',
          issuer: 'spiffe://keyed.example',
          jwks_uri: 'https://localhost:9/jwks',
          rules: [{ sub: '*', resources: [MCP], scope: 'tools:call' }],
        },
      ],
    });
    const signer = await spiffeIssuer({ audience: ISSUER, nowSeconds: nowOf(server.clock), trustDomain: 'keyed.example' });
    for (const iss of ['https://127.0.0.1:9/k8s', 'spiffe://keyed.example']) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: FORM_HEADERS,
        payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await signer.sign({ iss }), resource: MCP }).toString(),
      });
      expectOAuthError(t, res, REFUSED);
    }
    t.same(
      log
        .lines()
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.event === 'workload.refused')
        .map(({ reason, trust }) => `${String(trust)}: ${String(reason)}`),
      ['internal: keys_unavailable', 'keyed: keys_unavailable'],
      'refused before connecting: loopback is a special-use address',
    );
    // The cluster's issuer with a trailing slash: its discovery document names it without.
    const s = await workloadSetup(t, memoryStore, {
      trusts: (p) => [{ id: 'slash', issuer: `${p.kubernetes.issuer}/`, rules: [{ sub: '*', resources: [MCP], scope: 'tools:call' }] }],
    });
    expectOAuthError(t, await s.token(await s.kubernetes.sign({ iss: `${s.kubernetes.issuer}/` })), REFUSED);
    t.same(s.audit('workload.refused'), [{ event: 'workload.refused', reason: 'keys_unavailable', trust: 'slash', address: '127.0.0.1' }]);
  },
);

t.test('DPoP: a proof binds the workload’s token to its key (RFC 9449 §5)', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  const key = await dpopKey();
  const proof = await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: nowOf(s.server.clock)() });
  const res = await s.token(await s.spiffe.sign(), {}, { dpop: proof });
  t.equal(res.statusCode, 200);
  t.equal(body(res).token_type, 'DPoP');
  t.same(decodeJwt(body(res).access_token as string).cnf, { jkt: key.jkt });
});

t.test('the metadata lists the JWT bearer grant while a trust exists (no client needed), and no ID-JAG profile', async (t) => {
  const s = await workloadSetup(t, memoryStore);
  const metadata = (await s.server.app.inject('/.well-known/oauth-authorization-server')).json() as Record<string, unknown>;
  t.same(metadata.grant_types_supported, ['authorization_code', 'client_credentials', JWT_BEARER]);
  t.equal(metadata.authorization_grant_profiles_supported, undefined);
});

t.test('metrics: tokens issued to workloads by trust, refusals by reason', async (t) => {
  const s = await workloadSetup(t, memoryStore, { metrics: true });
  const listener = await metricsListener(t, s.server.metrics);
  const jwt = await s.github.sign();
  await s.token(jwt, { resource: DEPLOY });
  await s.token(jwt, { resource: DEPLOY });
  await s.token(await s.spiffe.sign({ aud: 'https://elsewhere.example.com' }));
  await s.token(await s.spiffe.sign());
  const m = await scrape(listener);
  t.equal(m.value('oauth2_tokens_issued_total', { grant_type: 'workload', client_id: 'workload:ci' }), 1);
  t.equal(m.value('oauth2_tokens_issued_total', { grant_type: 'workload', client_id: 'workload:mesh' }), 1);
  t.equal(m.value('oauth2_workload_refusals_total', { reason: 'replayed' }), 1);
  t.equal(m.value('oauth2_workload_refusals_total', { reason: 'wrong_audience' }), 1);
  t.equal(m.value('oauth2_token_errors_total', { error: 'invalid_grant' }), 2);
});
