import type { JWTPayload } from 'jose';
import t, { type Test } from 'tap';
import type { ClientAuthenticationFailure } from '../../src/events/types.js';
import {
  assertionSubject,
  type AudienceRule,
  checkAssertionAlgorithm,
  checkAssertionClaims,
  CLIENT_ASSERTION_ALGORITHMS,
  ClientAssertionRefused,
  decodeClientAssertion,
  isExplicitlyTyped,
} from '../../src/oauth/client-assertion.js';

/** The rules of a client assertion (RFC 7523 §3, OpenID Connect Core §9) on decoded headers and claims. */

const NOW = 1_800_000_000;
const ISSUER = 'https://as.example.com';
const TOKEN_ENDPOINT = 'https://as.example.com/oauth2/token';
/** Assertions without typ client-authentication+jwt, by default. */
const LENIENT: AudienceRule = { issuer: ISSUER, tokenEndpoint: TOKEN_ENDPOINT };
/** Assertions with that typ, and every one with CLIENT_ASSERTION_STRICT_AUDIENCE. */
const ISSUER_ONLY: AudienceRule = { issuer: ISSUER, tokenEndpoint: undefined };
const EXPECTED = { clientId: 'service', audience: LENIENT, nowSeconds: NOW };
const CLAIMS: JWTPayload = { iss: 'service', sub: 'service', aud: ISSUER, exp: NOW + 60, iat: NOW, jti: 'a1' };

/** Refused saying `reason`, as the check `failure` (the audit code). */
function refused(t: Test, check: () => unknown, reason: string, failure: ClientAuthenticationFailure): void {
  try {
    check();
    t.fail(`accepted; expected: ${reason}`);
  } catch (err) {
    t.ok(err instanceof ClientAssertionRefused, reason);
    t.equal((err as Error).message, reason);
    t.equal((err as ClientAssertionRefused).failure, failure);
  }
}

const claims = (changes: Record<string, unknown>): JWTPayload =>
  Object.fromEntries(Object.entries({ ...CLAIMS, ...changes }).filter(([, value]) => value !== undefined)) as JWTPayload;

t.test('a well-formed assertion: its jti, remembered for its remaining life plus the skew', async (t) => {
  t.same(checkAssertionClaims(CLAIMS, EXPECTED), { jti: 'a1', replayWindowSeconds: 90 });
  t.same(checkAssertionClaims(claims({ iat: undefined, exp: NOW + 0.5 }), EXPECTED), { jti: 'a1', replayWindowSeconds: 31 });
  t.same(checkAssertionClaims(claims({ exp: NOW - 29 }), EXPECTED).replayWindowSeconds, 1, 'inside the skew: at least a second');
});

t.test('RFC 7523 §3 items 1-2: iss and sub are the client_id', async (t) => {
  refused(t, () => checkAssertionClaims(claims({ iss: 'other' }), EXPECTED), 'iss is not the client_id', 'wrong_issuer');
  refused(t, () => checkAssertionClaims(claims({ iss: undefined }), EXPECTED), 'iss is not the client_id', 'wrong_issuer');
  refused(t, () => checkAssertionClaims(claims({ sub: 'other' }), EXPECTED), 'sub is not the client_id', 'wrong_subject');
  refused(t, () => checkAssertionClaims(claims({ sub: undefined }), EXPECTED), 'sub is not the client_id', 'wrong_subject');
});

t.test('aud, issuer only (draft-ietf-oauth-rfc7523bis §4): our issuer identifier, alone, as a string or an array of one', async (t) => {
  const strict = { ...EXPECTED, audience: ISSUER_ONLY };
  for (const aud of [ISSUER, [ISSUER]]) t.equal(checkAssertionClaims(claims({ aud }), strict).jti, 'a1', JSON.stringify(aud));
  for (const aud of [TOKEN_ENDPOINT, 'https://other.example', `${ISSUER}/`, undefined, 7, [TOKEN_ENDPOINT], ['https://other.example']]) {
    const reason = Array.isArray(aud) ? 'aud is not our issuer identifier alone' : 'aud is not our issuer identifier';
    refused(t, () => checkAssertionClaims(claims({ aud }), strict), reason, 'wrong_audience');
  }
  for (const aud of [
    [],
    [ISSUER, 'https://other.example'],
    ['https://other.example', ISSUER],
    [ISSUER, TOKEN_ENDPOINT],
    [ISSUER, ISSUER],
  ]) {
    refused(t, () => checkAssertionClaims(claims({ aud }), strict), 'aud is not our issuer identifier alone', 'wrong_audience');
  }
});

t.test('aud, with the token endpoint URL: either of our identifiers, or an array of only those; nobody else', async (t) => {
  for (const aud of [ISSUER, TOKEN_ENDPOINT, [ISSUER], [TOKEN_ENDPOINT], [ISSUER, TOKEN_ENDPOINT]]) {
    t.equal(checkAssertionClaims(claims({ aud }), EXPECTED).jti, 'a1', JSON.stringify(aud));
  }
  for (const aud of [undefined, 'https://other.example', `${ISSUER}/`, 'https://as.example.com/oauth2/introspect', 7]) {
    refused(
      t,
      () => checkAssertionClaims(claims({ aud }), EXPECTED),
      'aud is neither our issuer identifier nor our token endpoint URL',
      'wrong_audience',
    );
  }
  // An array naming another server too could be replayed there.
  for (const aud of [[], [7], ['https://other.example'], [ISSUER, 'https://other.example'], ['https://other.example', TOKEN_ENDPOINT]]) {
    refused(
      t,
      () => checkAssertionClaims(claims({ aud }), EXPECTED),
      'aud names others than our issuer identifier and token endpoint URL',
      'wrong_audience',
    );
  }
});

t.test('RFC 7523 §3 item 4: exp is required and not past, give or take 30 s of skew', async (t) => {
  refused(t, () => checkAssertionClaims(claims({ exp: undefined }), EXPECTED), 'exp is missing', 'malformed');
  refused(t, () => checkAssertionClaims(claims({ exp: NOW - 30 }), EXPECTED), 'expired', 'expired');
  refused(t, () => checkAssertionClaims(claims({ exp: String(NOW + 60) }), EXPECTED), 'exp is not a NumericDate', 'malformed');
});

t.test('the lifetime is bounded: exp at most 5 minutes ahead, iat at most 5 minutes behind (plus the skew)', async (t) => {
  t.equal(checkAssertionClaims(claims({ exp: NOW + 330 }), EXPECTED).replayWindowSeconds, 360, 'exactly the bound');
  refused(t, () => checkAssertionClaims(claims({ exp: NOW + 331 }), EXPECTED), 'exp is too far in the future', 'lifetime_too_long');
  t.equal(checkAssertionClaims(claims({ iat: NOW - 330 }), EXPECTED).jti, 'a1');
  refused(t, () => checkAssertionClaims(claims({ iat: NOW - 331 }), EXPECTED), 'issued too long ago (iat)', 'lifetime_too_long');
  refused(t, () => checkAssertionClaims(claims({ iat: NOW + 31 }), EXPECTED), 'issued in the future (iat)', 'not_yet_valid');
  refused(t, () => checkAssertionClaims(claims({ nbf: NOW + 31 }), EXPECTED), 'not valid yet (nbf)', 'not_yet_valid');
  t.equal(checkAssertionClaims(claims({ nbf: NOW + 30 }), EXPECTED).jti, 'a1', 'nbf inside the skew');
});

t.test('OpenID Connect Core §9: jti is required', async (t) => {
  for (const jti of [undefined, '', 42, 'x'.repeat(513)]) {
    refused(t, () => checkAssertionClaims(claims({ jti }), EXPECTED), 'jti is missing or malformed', 'malformed');
  }
});

t.test('alg: one of the asymmetric algorithms offered (or the one the client registered); never none or HMAC', async (t) => {
  for (const alg of CLIENT_ASSERTION_ALGORITHMS) t.equal(checkAssertionAlgorithm({ alg }, CLIENT_ASSERTION_ALGORITHMS), alg);
  for (const alg of ['none', 'HS256', 'HS512', 'ES512', undefined]) {
    refused(
      t,
      () => checkAssertionAlgorithm({ alg } as never, CLIENT_ASSERTION_ALGORITHMS),
      `alg ${String(alg)} is not accepted`,
      'algorithm_not_allowed',
    );
  }
  refused(t, () => checkAssertionAlgorithm({ alg: 'RS256' }, ['ES256']), 'alg RS256 is not accepted', 'algorithm_not_allowed');
});

t.test('typ: none or JWT (before RFC 7523bis), client-authentication+jwt (explicit); never another type', async (t) => {
  for (const typ of [undefined, 'JWT', 'jwt', 'application/jwt'])
    t.equal(isExplicitlyTyped({ alg: 'ES256', ...(typ ? { typ } : {}) }), false, String(typ));
  for (const typ of ['client-authentication+jwt', 'Client-Authentication+JWT', 'application/client-authentication+jwt']) {
    t.equal(isExplicitlyTyped({ alg: 'ES256', typ }), true, typ);
  }
  for (const typ of ['at+jwt', 'dpop+jwt', 'oauth-id-jag+jwt', 'example-authentication+jwt', 'client-authentication', '']) {
    refused(t, () => isExplicitlyTyped({ alg: 'ES256', typ }), `typ ${typ} is not a client assertion's`, 'wrong_type');
  }
  refused(t, () => isExplicitlyTyped({ alg: 'ES256', typ: 7 } as never), "typ 7 is not a client assertion's", 'wrong_type');
});

t.test('decoding: a JWS compact JWT; the subject names the client when client_id is not sent (RFC 7521 §4.2)', async (t) => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const jwt = `${encode({ alg: 'ES256', kid: 'k1' })}.${encode(CLAIMS)}.c2ln`;
  const decoded = decodeClientAssertion(jwt);
  t.same({ header: decoded.header, claims: decoded.claims }, { header: { alg: 'ES256', kid: 'k1' }, claims: CLAIMS });
  t.equal(decoded.jws.signingInput, jwt.slice(0, jwt.lastIndexOf('.')), 'what the signature covers');
  t.equal(assertionSubject(jwt), 'service');
  for (const bad of ['', 'a.b', 'not-a-jwt', `${encode({ alg: 'ES256' })}.bm90LWpzb24.c2ln`]) {
    refused(t, () => decodeClientAssertion(bad), 'not a signed JWT (JWS compact serialization)', 'malformed');
    t.equal(assertionSubject(bad), undefined);
  }
  t.equal(assertionSubject(`${encode({ alg: 'ES256' })}.${encode({ sub: 7 })}.c2ln`), undefined, 'a sub that is not a string');
});
