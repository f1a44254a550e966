import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { importJWK } from 'jose';
import t from 'tap';
import type { SigningKey } from '../../src/keys/keystore.js';
import { verifiedOwnClaims } from '../../src/tokens/access-token-verify.js';

/**
 * Our access tokens verified with node:crypto (token exchange, introspection, revocation,
 * userinfo): everything jose's jwtVerify refused is still undefined.
 */

const ISSUER = 'https://as.example.com';
const NOW = 1_800_000_000;
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const es = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicKey = (await importJWK(es.publicKey.export({ format: 'jwk' }), 'ES256')) as SigningKey;
const CLAIMS = { iss: ISSUER, sub: 'u', aud: 'https://api.example', client_id: 'c', iat: NOW, exp: NOW + 60, jti: 'j' };
const HEADER = { alg: 'ES256', typ: 'at+jwt', kid: 'k1' };

function token(header: Record<string, unknown> = HEADER, claims: Record<string, unknown> = CLAIMS, key: KeyObject = es.privateKey): string {
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

const rules = {
  issuer: ISSUER,
  now: NOW,
  keyFor: (header: { kid?: string | undefined; alg?: string | undefined }) =>
    header.kid === 'k1' && header.alg === 'ES256' ? publicKey : undefined,
  keyObjects: new WeakMap(),
};

t.test('RFC 9068 §4: one of our unexpired tokens verifies; anything else is undefined', async (t) => {
  t.same(await verifiedOwnClaims(token(), rules), CLAIMS);
  t.same(await verifiedOwnClaims(token({ ...HEADER, typ: 'application/AT+JWT' }), rules), CLAIMS, 'typ as RFC 7515 §4.1.9 allows');
  const refused: [string, string][] = [
    [token({ ...HEADER, typ: 'JWT' }), 'another typ'],
    [token({ alg: 'ES256', kid: 'k1' }), 'no typ'],
    [token({ ...HEADER, kid: 'k2' }), 'a kid we do not publish'],
    [token({ ...HEADER, alg: 'ES384' }), 'an alg we do not sign with'],
    [`${encode({ ...HEADER, alg: 'none' })}.${encode(CLAIMS)}.`, 'alg none'],
    [token({ ...HEADER, alg: 'HS256' }), 'HS256'],
    [token(HEADER, CLAIMS, other.privateKey), 'another key'],
    [token({ ...HEADER, crit: ['b64'], b64: true }), 'crit'],
    [`${token().split('.').slice(0, 2).join('.')}.${encode('x')}`, 'a signature that is not one'],
    [`${encode(HEADER)}.${encode({ ...CLAIMS, sub: 'v' })}.${token().split('.')[2]}`, 'a changed payload'],
    [token(HEADER, { ...CLAIMS, iss: 'https://other.example' }), 'another issuer'],
    [token(HEADER, { ...CLAIMS, exp: NOW }), 'expired at exp (RFC 7519 §4.1.4: "on or after")'],
    [token(HEADER, { ...CLAIMS, nbf: NOW + 1 }), 'not before nbf'],
    [token(HEADER, { ...CLAIMS, exp: String(NOW + 60) }), 'exp not a number'],
    [token(HEADER, { ...CLAIMS, iat: 'now' }), 'iat not a number'],
    [token(HEADER, { ...CLAIMS, jti: undefined }), 'no jti'],
    [token(HEADER, { ...CLAIMS, client_id: undefined }), 'no client_id'],
    [token(HEADER, { ...CLAIMS, exp: undefined }), 'no exp'],
    ['not.a.jwt', 'no JWT'],
  ];
  for (const [presented, what] of refused) t.equal(await verifiedOwnClaims(presented, rules), undefined, what);
});
