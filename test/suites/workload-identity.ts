import { decodeJwt } from 'jose';
import type { Test } from 'tap';
import { capturedLogger } from '../helpers/logs.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { buildTestServer, FORM_HEADERS, ISSUER, NO_STORE_JSON, type TestServer } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import {
  githubActionsIssuer,
  hs256Jwt,
  kubernetesIssuer,
  spiffeIssuer,
  unsignedJwt,
  type WorkloadIssuer,
} from '../helpers/workload-issuers.js';

/**
 * Workload identity federation (MCP ext-auth workload-identity-federation; RFC 7523 §2.1, §3):
 * the JWT bearer grant without a client, with JWTs of local issuers that behave like
 * Kubernetes (discovery + JWKS), GitHub Actions (discovery, its claim set) and SPIFFE (a
 * bundle inline in the trust), on a store (memory and Redis): what each rule admits, and
 * each refusal with its exact answer and its audit line.
 */

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const MCP = 'https://mcp.example.com';
export const DEPLOY = 'https://deploy.example.com';
const UNREGISTERED = 'https://unregistered.example.com';
/** GitHub Actions' default audience is the repository owner's URL; the ci trust names it. */
const GITHUB_AUDIENCE = 'https://github.com/acme';
export const REFUSED = {
  status: 400,
  error: 'invalid_grant',
  description: 'the assertion is not valid, or the workload may not have the requested resource',
};

export const RESOURCES = [
  { resource: MCP, scope: 'tools:call tools:list' },
  { resource: DEPLOY, scope: 'deploy:read deploy:write' },
];

export interface WorkloadPlatforms {
  readonly kubernetes: WorkloadIssuer;
  readonly github: WorkloadIssuer;
  readonly spiffe: WorkloadIssuer;
  /** A second SPIFFE trust domain whose trust sets require_jti. */
  readonly strict: WorkloadIssuer;
}

/** The trusts of the three platforms (and a strict SPIFFE one), as WORKLOAD_TRUSTS_FILE would hold them. */
export function platformTrusts(p: WorkloadPlatforms): unknown[] {
  return [
    {
      id: 'cluster',
      issuer: p.kubernetes.issuer,
      rules: [
        // The first rule that matches decides: deploy-agent gets the deploy API, and only that.
        {
          claims: { 'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'deploy-agent' } } },
          resources: [DEPLOY],
          scope: 'deploy:read',
        },
        { sub: 'system:serviceaccount:agents:*', resources: [MCP, UNREGISTERED], scope: 'tools:call' },
      ],
    },
    {
      id: 'ci',
      issuer: p.github.issuer,
      audience: GITHUB_AUDIENCE,
      rules: [
        { claims: { repository: 'acme/deploy', ref: 'refs/heads/main' }, resources: [DEPLOY, MCP], scope: 'deploy:read deploy:write' },
      ],
    },
    {
      id: 'mesh',
      issuer: p.spiffe.issuer,
      jwks: p.spiffe.jwks,
      rules: [{ sub: 'spiffe://example.org/ns/default/sa/*', resources: [MCP], scope: 'tools:call tools:list' }],
    },
    {
      id: 'strict',
      issuer: p.strict.issuer,
      jwks: p.strict.jwks,
      require_jti: true,
      rules: [{ sub: 'spiffe://strict.example.org/*', resources: [MCP], scope: 'tools:call' }],
    },
  ];
}

type Line = Record<string, unknown>;
const POSITIONAL = new Set(['level', 'time', 'pid', 'hostname', 'reqId', 'audit', 'msg']);

export interface WorkloadSetup extends WorkloadPlatforms {
  readonly server: TestServer;
  /** POST /oauth2/token with the jwt-bearer grant, `assertion` and `params` (resource MCP unless given), and `headers`. */
  token(assertion: string, params?: Record<string, string | string[]>, headers?: Record<string, string>): Promise<InjectedResponse>;
  /** The audit lines of `event` so far, without pino's own fields. */
  audit(event: string): Line[];
}

export interface WorkloadSetupOptions {
  readonly env?: Record<string, string>;
  /** More trusts beside the platforms'. */
  readonly trusts?: (platforms: WorkloadPlatforms) => unknown[];
  /** Record Prometheus series (TestServer.metrics). */
  readonly metrics?: boolean;
}

export async function workloadSetup(t: Test, openStore: OpenStore, options: WorkloadSetupOptions = {}): Promise<WorkloadSetup> {
  const testStore = await openStore(t);
  const nowSeconds = () => Math.floor(testStore.clock.now / 1000);
  const platforms: WorkloadPlatforms = {
    kubernetes: await kubernetesIssuer(t, { audience: ISSUER, nowSeconds }),
    github: await githubActionsIssuer(t, { audience: GITHUB_AUDIENCE, nowSeconds }),
    spiffe: await spiffeIssuer({ audience: ISSUER, nowSeconds }),
    strict: await spiffeIssuer({ audience: ISSUER, nowSeconds, trustDomain: 'strict.example.org' }),
  };
  const log = capturedLogger('info');
  const server = await buildTestServer(t, {
    store: testStore,
    resources: RESOURCES,
    workloads: [...platformTrusts(platforms), ...(options.trusts?.(platforms) ?? [])],
    logger: log.logger,
    env: options.env ?? {},
    metrics: options.metrics ?? false,
  });
  return {
    ...platforms,
    server,
    token: (assertion, params = {}, headers = {}) => {
      const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
      for (const [name, value] of Object.entries({ resource: MCP, ...params }))
        for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
      return server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, ...headers },
        payload: body.toString(),
      });
    },
    audit: (event) =>
      log
        .lines()
        .map((line) => JSON.parse(line) as Line)
        .filter((line) => line.audit === true && line.event === event)
        .map((line) => Object.fromEntries(Object.entries(line).filter(([name]) => !POSITIONAL.has(name)))),
  };
}

/** The token answer: exactly RFC 6749 §5.1's members, a bearer token of ACCESS_TOKEN_TTL, no refresh token. */
function issuedToken(t: Test, res: InjectedResponse, scope: string): Record<string, unknown> {
  t.equal(res.statusCode, 200, JSON.stringify(res.json()));
  t.match(res.headers, NO_STORE_JSON);
  const body = res.json() as Record<string, unknown>;
  t.same(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type'], 'no refresh_token, no id_token');
  t.match(body, { token_type: 'bearer', expires_in: 3600, scope });
  return decodeJwt(body.access_token as string);
}

export function workloadSuite(t: Test, openStore: OpenStore): void {
  t.test('Kubernetes: a projected service account token, keys by discovery; the first matching rule decides', async (t) => {
    const s = await workloadSetup(t, openStore);
    const chat = await s.kubernetes.sign({
      sub: 'system:serviceaccount:agents:chat-agent',
      'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'chat-agent', uid: 'c0ffee00-0000-4000-8000-000000000001' } },
    });
    const claims = issuedToken(t, await s.token(chat), 'tools:call');
    t.same(Object.keys(claims).sort(), ['aud', 'client_id', 'exp', 'iat', 'iss', 'iss_trust', 'jti', 'scope', 'sub']);
    t.match(claims, {
      iss: ISSUER,
      sub: 'system:serviceaccount:agents:chat-agent',
      aud: MCP,
      client_id: 'workload:cluster',
      iss_trust: 'cluster',
      scope: 'tools:call',
    });
    t.same(s.audit('token.issued'), [
      {
        event: 'token.issued',
        grant: 'workload',
        clientId: 'workload:cluster',
        sub: 'system:serviceaccount:agents:chat-agent',
        scope: ['tools:call'],
        resource: [MCP],
        jti: claims.jti,
        refreshToken: false,
      },
    ]);
    // deploy-agent matches the first rule (its kubernetes.io claim): the deploy API, read only.
    const deploy = issuedToken(t, await s.token(await s.kubernetes.sign(), { resource: DEPLOY }), 'deploy:read');
    t.match(deploy, { sub: 'system:serviceaccount:agents:deploy-agent', aud: DEPLOY, client_id: 'workload:cluster' });
    // ... and not the MCP server, though the second rule would admit it.
    expectOAuthError(t, await s.token(await s.kubernetes.sign()), REFUSED);
    t.same(s.audit('workload.refused'), [
      {
        event: 'workload.refused',
        reason: 'resource_not_allowed',
        trust: 'cluster',
        sub: 'system:serviceaccount:agents:deploy-agent',
        address: '127.0.0.1',
      },
    ]);
    // One discovery and one key set fetch served all three.
    t.same(Object.fromEntries(s.kubernetes.requests), { '/.well-known/openid-configuration': 1, '/openid/v1/jwks': 1 });
  });

  t.test('GitHub Actions: its OIDC token, its own audience, admitted by repository and ref; a jti is taken once', async (t) => {
    const s = await workloadSetup(t, openStore);
    const jwt = await s.github.sign();
    const claims = issuedToken(t, await s.token(jwt, { resource: DEPLOY, scope: 'deploy:write admin' }), 'deploy:write');
    t.match(claims, { sub: 'repo:acme/deploy:ref:refs/heads/main', aud: DEPLOY, client_id: 'workload:ci', iss_trust: 'ci' });
    // RFC 7523 §3 item 7: the same JWT again is a replay.
    expectOAuthError(t, await s.token(jwt, { resource: DEPLOY }), REFUSED);
    // Another branch of the repository: no rule admits it.
    const branch = await s.github.sign({ sub: 'repo:acme/deploy:ref:refs/heads/dev', ref: 'refs/heads/dev' });
    expectOAuthError(t, await s.token(branch, { resource: DEPLOY }), REFUSED);
    // Our issuer identifier is not its audience: the trust names its own.
    expectOAuthError(t, await s.token(await s.github.sign({ aud: ISSUER }), { resource: DEPLOY }), REFUSED);
    const sub = 'repo:acme/deploy:ref:refs/heads/main';
    t.same(s.audit('workload.refused'), [
      { event: 'workload.refused', reason: 'replayed', trust: 'ci', sub, address: '127.0.0.1' },
      {
        event: 'workload.refused',
        reason: 'no_matching_rule',
        trust: 'ci',
        sub: 'repo:acme/deploy:ref:refs/heads/dev',
        address: '127.0.0.1',
      },
      { event: 'workload.refused', reason: 'wrong_audience', trust: 'ci', sub, address: '127.0.0.1' },
    ]);
    // Both resources of the rule in one token: aud is both, the scope what either accepts within the rule's.
    const both = issuedToken(t, await s.token(await s.github.sign(), { resource: [DEPLOY, MCP] }), 'deploy:read deploy:write');
    t.same(both.aud, [DEPLOY, MCP]);
  });

  t.test('SPIFFE: a JWT-SVID verified with the bundle inline in the trust (no jti needed, unless the trust requires one)', async (t) => {
    const s = await workloadSetup(t, openStore);
    const svid = await s.spiffe.sign();
    const claims = issuedToken(t, await s.token(svid, { scope: 'tools:list' }), 'tools:list');
    t.match(claims, { sub: 'spiffe://example.org/ns/default/sa/x', aud: MCP, client_id: 'workload:mesh', iss_trust: 'mesh' });
    // Without a jti nothing marks it spent: a JWT-SVID serves until it expires, as SPIFFE means it to.
    issuedToken(t, await s.token(svid), 'tools:call tools:list');
    expectOAuthError(t, await s.token(await s.strict.sign()), REFUSED);
    issuedToken(t, await s.token(await s.strict.sign({ jti: 'svid-1' })), 'tools:call');
    t.same(s.audit('workload.refused'), [
      {
        event: 'workload.refused',
        reason: 'jti_required',
        trust: 'strict',
        sub: 'spiffe://strict.example.org/ns/default/sa/x',
        address: '127.0.0.1',
      },
    ]);
  });

  t.test('an untrusted issuer, alg none and HS256 (keyed with the issuer’s public key): refused, nothing fetched', async (t) => {
    const s = await workloadSetup(t, openStore);
    const claims = decodeJwt(await s.kubernetes.sign());
    expectOAuthError(t, await s.token(unsignedJwt(claims)), REFUSED);
    expectOAuthError(t, await s.token(await hs256Jwt(claims, JSON.stringify(s.kubernetes.jwks))), REFUSED);
    const stranger = await spiffeIssuer({
      audience: ISSUER,
      nowSeconds: () => Math.floor(s.server.clock.now / 1000),
      trustDomain: 'evil.example',
    });
    expectOAuthError(t, await s.token(await stranger.sign()), REFUSED);
    // A trusted issuer named by a JWT signed with someone else's key of the same kid.
    const forged = await spiffeIssuer({ audience: ISSUER, nowSeconds: () => Math.floor(s.server.clock.now / 1000) });
    expectOAuthError(t, await s.token(await forged.sign()), REFUSED);
    t.same(s.audit('workload.refused'), [
      { event: 'workload.refused', reason: 'algorithm_not_allowed', trust: 'cluster', address: '127.0.0.1' },
      { event: 'workload.refused', reason: 'algorithm_not_allowed', trust: 'cluster', address: '127.0.0.1' },
      { event: 'workload.refused', reason: 'untrusted_issuer', address: '127.0.0.1' },
      { event: 'workload.refused', reason: 'bad_signature', trust: 'mesh', address: '127.0.0.1' },
    ]);
    t.same(Object.fromEntries(s.kubernetes.requests), {}, 'no discovery, no keys fetched for an algorithm never accepted');
  });

  t.test('the audience: our issuer or token endpoint URL; an array naming anyone else is refused (RFC 7523bis)', async (t) => {
    const s = await workloadSetup(t, openStore);
    issuedToken(t, await s.token(await s.spiffe.sign({ aud: `${ISSUER}/oauth2/token` })), 'tools:call tools:list');
    issuedToken(t, await s.token(await s.spiffe.sign({ aud: [ISSUER, `${ISSUER}/oauth2/token`] })), 'tools:call tools:list');
    for (const aud of ['https://elsewhere.example.com', [ISSUER, 'https://elsewhere.example.com'], [], undefined])
      expectOAuthError(t, await s.token(await s.spiffe.sign({ aud })), REFUSED);
    t.same(
      s.audit('workload.refused').map((line) => line.reason),
      ['wrong_audience', 'wrong_audience', 'wrong_audience', 'wrong_audience'],
    );
  });

  t.test('times: expired, not yet valid, issued in the future, more than 24 hours ahead; 60 seconds of skew either way', async (t) => {
    const s = await workloadSetup(t, openStore);
    const now = Math.floor(s.server.clock.now / 1000);
    issuedToken(t, await s.token(await s.spiffe.sign({ exp: now - 30 })), 'tools:call tools:list');
    issuedToken(t, await s.token(await s.spiffe.sign({ nbf: now + 30, iat: now + 30 })), 'tools:call tools:list');
    issuedToken(t, await s.token(await s.spiffe.sign({ exp: now + 86_400 })), 'tools:call tools:list');
    const refused = [{ exp: now - 61 }, { nbf: now + 61 }, { iat: now + 61 }, { exp: now + 86_400 + 61 }, { exp: undefined }];
    for (const claims of refused) expectOAuthError(t, await s.token(await s.spiffe.sign(claims)), REFUSED);
    t.same(
      s.audit('workload.refused').map((line) => line.reason),
      ['expired', 'not_yet_valid', 'not_yet_valid', 'lifetime_too_long', 'malformed'],
    );
  });

  t.test('a jti is remembered for the JWT’s remaining life and the skew: a replay within it is refused', async (t) => {
    const s = await workloadSetup(t, openStore);
    const now = Math.floor(s.server.clock.now / 1000);
    const jwt = await s.kubernetes.sign({
      sub: 'system:serviceaccount:agents:chat-agent',
      'kubernetes.io': { namespace: 'agents' },
      exp: now + 120,
    });
    issuedToken(t, await s.token(jwt), 'tools:call');
    await s.server.advance(120 + 59);
    expectOAuthError(t, await s.token(jwt), REFUSED);
    // Past its acceptance window it is refused as expired, whatever the store still holds.
    await s.server.advance(2);
    expectOAuthError(t, await s.token(jwt), REFUSED);
    t.same(
      s.audit('workload.refused').map((line) => line.reason),
      ['replayed', 'expired'],
    );
  });
}
