import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { Test } from 'tap';

/**
 * Local issuers of workload JWTs that behave like the platforms workload identity federation
 * is for (docs/workload-identity.md), each with a key generated per test (never written):
 * - Kubernetes: OpenID discovery at the issuer and the JWKS at /openid/v1/jwks (as the API
 *   server serves them), projected service account tokens (RS256, `aud` an array,
 *   `sub` system:serviceaccount:<namespace>:<name>, the `kubernetes.io` claim, a `jti`);
 * - GitHub Actions: discovery and /.well-known/jwks, the claims of its OIDC token
 *   (repository, ref, sha, workflow, actor, … and a `jti`), `typ: JWT`, `x5t` beside the kid;
 * - SPIFFE: no server, a trust bundle (SPIFFE Trust Domain and Bundle §4) inline in the trust,
 *   its JWT-SVID key marked "use": "jwt-svid", and JWT-SVIDs (ES256, `typ: JWT`, no `jti`).
 */

export interface WorkloadIssuer {
  /** The `iss` of its JWTs. */
  readonly issuer: string;
  readonly kid: string;
  /** Its public keys as it publishes them (the SPIFFE bundle for SPIFFE). */
  readonly jwks: Record<string, unknown>;
  /** Signs `claims` over the platform's own, with `header` over its header (undefined removes a member). */
  sign(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Requests its HTTP server answered, by path (none for SPIFFE). */
  readonly requests: Map<string, number>;
}

type Claims = (now: number) => Record<string, unknown>;

async function keyPair(alg: string, kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } as JWK };
}

function signer(
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'],
  baseHeader: Record<string, unknown>,
  base: Claims,
  nowSeconds: () => number,
) {
  return async (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) => {
    const payload: Record<string, unknown> = { ...base(nowSeconds()), ...claims };
    const protectedHeader: Record<string, unknown> = { ...baseHeader, ...header };
    for (const record of [payload, protectedHeader])
      for (const [name, value] of Object.entries(record)) if (value === undefined) delete record[name];
    return new SignJWT(payload as JWTPayload).setProtectedHeader(protectedHeader as { alg: string }).sign(privateKey);
  };
}

/** An HTTP issuer on loopback: its discovery document at the issuer and its JWKS at `jwksPath`. */
async function serveIssuer(t: Test, jwksPath: string, jwks: () => Record<string, unknown>) {
  const requests = new Map<string, number>();
  let issuer = '';
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const document =
      path === '/.well-known/openid-configuration'
        ? {
            issuer,
            jwks_uri: `${issuer}${jwksPath}`,
            response_types_supported: ['id_token'],
            id_token_signing_alg_values_supported: ['RS256'],
          }
        : path === jwksPath
          ? jwks()
          : undefined;
    response.writeHead(document ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { issuer, requests };
}

export interface IssuerOptions {
  /** The `aud` of its tokens (Kubernetes: an array of it). */
  readonly audience: string;
  /** Seconds since the epoch, now: the server's clock. */
  readonly nowSeconds: () => number;
}

/** Kubernetes' API server as an OpenID issuer of projected service account tokens (an hour of life). */
export async function kubernetesIssuer(t: Test, options: IssuerOptions): Promise<WorkloadIssuer> {
  const kid = 'k8s-sa-key-1';
  const { privateKey, publicJwk } = await keyPair('RS256', kid);
  const jwks = { keys: [publicJwk] };
  const { issuer, requests } = await serveIssuer(t, '/openid/v1/jwks', () => jwks);
  const claims: Claims = (now) => ({
    aud: [options.audience],
    exp: now + 3600,
    iat: now,
    nbf: now,
    iss: issuer,
    jti: randomUUID(),
    'kubernetes.io': {
      namespace: 'agents',
      node: { name: 'node-1', uid: '7b1c7a62-4a4c-4f4b-9b3a-1a2b3c4d5e6f' },
      pod: { name: 'deploy-agent-5d8f7', uid: '0f9e8d7c-6b5a-4c3d-2e1f-0a9b8c7d6e5f' },
      serviceaccount: { name: 'deploy-agent', uid: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' },
    },
    sub: 'system:serviceaccount:agents:deploy-agent',
  });
  return { issuer, kid, jwks, requests, sign: signer(privateKey, { alg: 'RS256', kid }, claims, options.nowSeconds) };
}

/** GitHub Actions' OIDC token issuer (token.actions.githubusercontent.com), for a workflow of acme/deploy on main. */
export async function githubActionsIssuer(t: Test, options: IssuerOptions): Promise<WorkloadIssuer> {
  const kid = '38826b17-6a30-5f9b-b169-8beb8202f723';
  const { privateKey, publicJwk } = await keyPair('RS256', kid);
  const jwks = { keys: [{ ...publicJwk, x5t: 'ykNaY4qM_ta4k2TgZOCEYLkcYlA' }] };
  const { issuer, requests } = await serveIssuer(t, '/.well-known/jwks', () => jwks);
  const claims: Claims = (now) => ({
    jti: randomUUID(),
    sub: 'repo:acme/deploy:ref:refs/heads/main',
    aud: options.audience,
    ref: 'refs/heads/main',
    sha: '9f2c1a0e4b7d3c6a8e5f1b2d4c6e8a0b3d5f7e9c',
    repository: 'acme/deploy',
    repository_owner: 'acme',
    repository_owner_id: '65432',
    run_id: '9876543210',
    run_number: '42',
    run_attempt: '1',
    repository_visibility: 'private',
    repository_id: '123456789',
    actor_id: '1234567',
    actor: 'octocat',
    workflow: 'deploy',
    head_ref: '',
    base_ref: '',
    event_name: 'push',
    ref_protected: 'true',
    ref_type: 'branch',
    workflow_ref: 'acme/deploy/.github/workflows/deploy.yml@refs/heads/main',
    workflow_sha: '9f2c1a0e4b7d3c6a8e5f1b2d4c6e8a0b3d5f7e9c',
    job_workflow_ref: 'acme/deploy/.github/workflows/deploy.yml@refs/heads/main',
    job_workflow_sha: '9f2c1a0e4b7d3c6a8e5f1b2d4c6e8a0b3d5f7e9c',
    runner_environment: 'github-hosted',
    iss: issuer,
    nbf: now - 5,
    exp: now + 300,
    iat: now,
  });
  const header = { typ: 'JWT', alg: 'RS256', x5t: 'ykNaY4qM_ta4k2TgZOCEYLkcYlA', kid };
  return { issuer, kid, jwks, requests, sign: signer(privateKey, header, claims, options.nowSeconds) };
}

/** A SPIFFE trust domain's JWT-SVID authority, its bundle (for the trust's `jwks`) and JWT-SVIDs of five minutes. */
export async function spiffeIssuer(options: IssuerOptions & { readonly trustDomain?: string }): Promise<WorkloadIssuer> {
  const trustDomain = options.trustDomain ?? 'example.org';
  const kid = 'spire-jwt-authority-1';
  const { privateKey, publicJwk } = await keyPair('ES256', kid);
  // SPIFFE Trust Domain and Bundle §4.2.2: "use" says which SVIDs a key verifies.
  const x509Authority = (await keyPair('ES256', 'spire-x509-authority-1')).publicJwk;
  const jwks = {
    keys: [
      { ...publicJwk, use: 'jwt-svid', alg: undefined },
      { ...x509Authority, use: 'x509-svid', kid: undefined, alg: undefined },
    ].map((key) => JSON.parse(JSON.stringify(key)) as Record<string, unknown>),
    spiffe_sequence: 1,
    spiffe_refresh_hint: 300,
  };
  const issuer = `spiffe://${trustDomain}`;
  const claims: Claims = (now) => ({
    iss: issuer,
    sub: `spiffe://${trustDomain}/ns/default/sa/x`,
    aud: [options.audience],
    exp: now + 300,
    iat: now,
  });
  return {
    issuer,
    kid,
    jwks,
    requests: new Map(),
    sign: signer(privateKey, { alg: 'ES256', kid, typ: 'JWT' }, claims, options.nowSeconds),
  };
}

/** A JWT with `alg: none` and no signature, as an attacker would send it. */
export function unsignedJwt(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT', ...header })}.${encode(claims)}.`;
}

/** A JWT signed with HMAC-SHA256 under `secret` (a key anyone may guess, such as the issuer's published key material). */
export async function hs256Jwt(claims: Record<string, unknown>, secret: string): Promise<string> {
  return new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}
