import { createLocalJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import type { SigningAlgorithm } from '../../src/keys/key-file.js';
import { UserRegistry } from '../../src/users/registry.js';
import { ALICE, AUTHORIZE_CLIENTS, WEB_REDIRECT, WEB_SECRET } from './authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from './browser-flow.js';
import { cheapPasswordHash } from './passwords.js';
import { basic, buildTestServer, FORM_HEADERS, ISSUER, type TestServer } from './server.js';
import type { TestStore } from './stores.js';

/** What the OpenID Connect tests share: users with profiles, clients asking for each signing algorithm. */

export const ALICE_CLAIMS = {
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  preferred_username: 'alice',
  email: 'alice@example.com',
  email_verified: true,
  phone_number: '+44 20 7946 0000',
  address: { locality: 'Oxford', country: 'GB' },
  updated_at: 1_700_000_000,
};

export function oidcUsers(): UserRegistry {
  return UserRegistry.fromEntries([
    { username: ALICE.username, password_hash: cheapPasswordHash(ALICE.password), sub: 'user-alice', claims: ALICE_CLAIMS },
    { username: 'bob', password_hash: cheapPasswordHash('bob-password-1'), claims: { email: 'bob@example.com', email_verified: false } },
  ]);
}

export const ES256_REDIRECT = 'https://es.example.com/cb';

export const OIDC_CLIENTS = [
  ...AUTHORIZE_CLIENTS.map((client) =>
    client.client_id === 'web'
      ? {
          ...client,
          scope: 'read write mcp:tools',
          post_logout_redirect_uris: ['https://app.example.com/signed-out'],
          allowed_origins: ['https://app.example.com'],
        }
      : client,
  ),
  {
    client_id: 'es-client',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    redirect_uris: [ES256_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read',
    id_token_signed_response_alg: 'ES256',
    default_max_age: 300,
  },
];

export const RESOURCE = 'https://mcp.example.com/mcp';

export interface OidcServerOptions {
  readonly store?: TestStore;
  readonly env?: Record<string, string>;
  /** More CLIENTS_FILE entries, beside OIDC_CLIENTS. */
  readonly clients?: unknown[];
  /** The chains of the keys folder (default: ES256 for access tokens, RS256 for ID tokens). */
  readonly signingAlgorithms?: readonly SigningAlgorithm[];
  readonly logger?: unknown;
}

export function oidcServer(t: Test, options: OidcServerOptions = {}): Promise<TestServer> {
  return buildTestServer(t, {
    users: oidcUsers(),
    resources: [{ resource: RESOURCE, scope: 'mcp:tools' }],
    signingAlgorithms: ['ES256', 'RS256'],
    ...options,
    clients: [...OIDC_CLIENTS, ...(options.clients ?? [])],
  });
}

/**
 * alice signs in and approves `openid read` for `web` once in a browser of `server`, so the
 * browser has a session and the consent is remembered; her ID token.
 */
export async function signedInBrowser(server: TestServer): Promise<{ browser: InjectBrowser; idToken: string }> {
  const browser = new InjectBrowser(server.app);
  const { body } = await codeFlow(server, { scope: 'openid read' }, { browser });
  return { browser, idToken: body.id_token as string };
}

/** `token` with the end of its signature changed: a JWT nobody signed. */
export function tamperedJwt(token: string): string {
  return `${token.slice(0, -6)}${token.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
}

/** The token response of a code flow for `params` (client `web` unless said), signed in as alice. */
export async function codeFlow(
  server: TestServer,
  params: Record<string, string>,
  options: {
    clientId?: string;
    redirectUri?: string;
    resources?: readonly string[];
    browser?: InjectBrowser;
    tokenExtra?: Record<string, string>;
    /** A DPoP proof for the token request. */
    dpopProof?: string;
  } = {},
): Promise<{
  response: LightMyRequestResponse;
  browser: InjectBrowser;
  body: Record<string, unknown>;
  /** Sends the same token request (the same code) again. */
  redeemAgain: () => Promise<LightMyRequestResponse>;
}> {
  const clientId = options.clientId ?? 'web';
  const redirectUri = options.redirectUri ?? WEB_REDIRECT;
  const browser = options.browser ?? new InjectBrowser(server.app);
  const { verifier, challenge } = pkcePair();
  const request = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  };
  const approved = await signInAndDecide(browser, request, ALICE, 'allow', options.resources ?? []);
  const code = redirectParams(approved.headers.location as string).code as string;
  const redeem = () =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic(clientId, WEB_SECRET), ...(options.dpopProof ? { dpop: options.dpopProof } : {}) },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        ...options.tokenExtra,
      }).toString(),
    });
  const response = await redeem();
  return { response, browser, body: response.json() as Record<string, unknown>, redeemAgain: redeem };
}

/** An ID token's header and claims, its signature checked against the server's JWKS. */
export async function verifiedIdToken(
  server: TestServer,
  token: string,
): Promise<{ alg: string; typ: string | undefined; claims: JWTPayload }> {
  const jwks = createLocalJWKSet(server.keystore.jwksAt(Math.floor(server.clock.now / 1000)));
  const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, currentDate: new Date(server.clock.now) });
  const header = decodeProtectedHeader(token);
  return { alg: header.alg as string, typ: header.typ, claims: payload };
}
