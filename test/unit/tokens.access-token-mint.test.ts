import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import t from 'tap';
import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { ServerError } from '../../src/errors/index.js';
import { Keystore } from '../../src/keys/keystore.js';
import { tokenResponseJson } from '../../src/grants/token-response-json.js';
import { AccessTokens, type AccessTokenRequest } from '../../src/tokens/access-token.js';
import type { SigningThread } from '../../src/tokens/jws.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';

/**
 * The access token as minted on the hot path (payload JSON written directly, the protected
 * header encoded once per key, the signature on this thread or libuv's thread pool): it
 * verifies with jose against the JWKS and carries exactly the RFC 9068 header and claims.
 */

const NOW = 1_800_000_000;
const ISSUER = 'https://as.example/tenant "a"';
const AUDIENCE = 'https://api.example';

const REQUESTS: readonly { name: string; request: AccessTokenRequest; claims: Record<string, unknown>; expiresIn: number }[] = [
  {
    name: 'client_credentials without scope or resource',
    request: { subject: 'svc', clientId: 'svc', scope: [] },
    claims: { iss: ISSUER, sub: 'svc', aud: AUDIENCE, client_id: 'svc' },
    expiresIn: 600,
  },
  {
    name: 'every optional claim, one resource with a shorter TTL, strings that JSON must escape',
    request: {
      subject: 'user "quoted" \\ \u00e9\u2028',
      clientId: 'client\n1',
      scope: ['read', 'write'],
      authTime: NOW - 30,
      grantId: 'grant-1',
      resources: [{ resource: 'https://one.example', accessTokenTtl: 120 }],
      jkt: 'thumbprint-1',
    },
    claims: {
      iss: ISSUER,
      sub: 'user "quoted" \\ \u00e9\u2028',
      aud: 'https://one.example',
      client_id: 'client\n1',
      scope: 'read write',
      auth_time: NOW - 30,
      grant_id: 'grant-1',
      cnf: { jkt: 'thumbprint-1' },
    },
    expiresIn: 120,
  },
  {
    name: 'two resources: aud is an array, the shortest TTL wins',
    request: {
      subject: 's',
      clientId: 'c',
      scope: ['read'],
      resources: [
        { resource: 'https://one.example', accessTokenTtl: 300 },
        { resource: 'https://two.example', accessTokenTtl: undefined },
      ],
    },
    claims: { iss: ISSUER, sub: 's', aud: ['https://one.example', 'https://two.example'], client_id: 'c', scope: 'read' },
    expiresIn: 300,
  },
];

for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'] as const satisfies readonly SigningAlgorithm[]) {
  for (const thread of ['main-thread', 'thread-pool'] as const satisfies readonly SigningThread[]) {
    t.test(`AccessTokens.issue with ${alg} on the ${thread}`, async (t) => {
      const keystore = await Keystore.open(await keysDirWithSigningKey(t, { alg, now: NOW }), NOW);
      const tokens = new AccessTokens(
        keystore,
        { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 600, signingThread: thread },
        () => NOW * 1000,
      );
      const jwks = createLocalJWKSet(keystore.jwksAt(NOW));
      const kid = keystore.signingKeyAt(NOW)?.kid;
      for (const { name, request, claims, expiresIn } of REQUESTS) {
        const issued = await tokens.issue(request);
        t.equal(issued.expiresIn, expiresIn, `${name}: expires_in`);
        // RFC 9068 §2.1: typ at+jwt; the header holds exactly alg, kid and typ, in that order.
        t.equal(
          Buffer.from(issued.token.split('.')[0] as string, 'base64url').toString(),
          JSON.stringify({ alg, kid, typ: 'at+jwt' }),
          `${name}: protected header`,
        );
        const { payload } = await jwtVerify(issued.token, jwks, {
          issuer: ISSUER,
          typ: 'at+jwt',
          algorithms: [alg],
          currentDate: new Date(NOW * 1000),
        });
        t.same(payload, { ...claims, iat: NOW, exp: NOW + expiresIn, jti: issued.jti }, `${name}: exactly these claims`);
        t.equal(
          Buffer.from(issued.token.split('.')[1] as string, 'base64url').toString(),
          JSON.stringify(payload),
          `${name}: the payload is the JSON text of its claims, in RFC 9068 order`,
        );
        t.same(await tokens.verify(issued.token), payload, `${name}: our own verification accepts it`);
        t.equal(decodeProtectedHeader(issued.token).kid, kid);
      }
    });
  }
}

t.test('AccessTokens.issue fails closed with server_error when no key signs now', async (t) => {
  const keystore = await Keystore.open(await keysDirWithSigningKey(t, { now: NOW }), NOW);
  const tokens = new AccessTokens(
    keystore,
    { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 600, signingThread: 'thread-pool' },
    () => (NOW - 10) * 1000,
  );
  await t.rejects(tokens.issue({ subject: 's', clientId: 'c', scope: [] }), ServerError);
});

t.test('tokenResponseJson is the JSON text of the RFC 6749 §5.1 response, members in order', async (t) => {
  const responses = [
    { access_token: 'a.b.c', token_type: 'bearer', expires_in: 3600 },
    { access_token: 'a.b.c', token_type: 'DPoP', expires_in: 60, scope: 'read "x"', refresh_token: 'r\\t' },
    { access_token: 'a.b.c', token_type: 'bearer', expires_in: 1, refresh_token: 'r' },
  ] as const;
  for (const response of responses) t.equal(tokenResponseJson(response), JSON.stringify(response));
});
