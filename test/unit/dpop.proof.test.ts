import { SignJWT } from 'jose';
import t, { type Test } from 'tap';
import { normalizedHtu } from '@oauth2-token-service/verifier/dpop-htu';
import { ProofKeyCache } from '@oauth2-token-service/verifier/dpop-key-cache';
import { DpopNonces } from '../../src/dpop/nonce.js';
import {
  DEFAULT_DPOP_ALGORITHMS,
  DpopProofError,
  replayWindowSeconds,
  singleDpopHeader,
  verifyDpopProof,
  type DpopProofOptions,
} from '@oauth2-token-service/verifier/dpop-proof';
import { dpopKey, dpopProof, unsignedProof } from '../helpers/dpop.js';

const NOW = 1_800_000_000;
const HTU = 'https://as.example.com/oauth2/token';
const REQUEST = { method: 'POST', url: HTU };
const OPTIONS: DpopProofOptions = { algorithms: DEFAULT_DPOP_ALGORITHMS, windowSeconds: 60, now: NOW };

async function refusal(t: Test, promise: Promise<unknown>, code: string, description: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof DpopProofError, `refused: ${description}`);
  t.match(err, { code, description });
}

t.test('RFC 9449 §4.3: a valid proof yields the RFC 7638 thumbprint of its key', async (t) => {
  for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256']) {
    const key = await dpopKey(alg);
    const proof = await dpopProof(key, { htu: HTU, iat: NOW, jti: 'j1' });
    t.same(await verifyDpopProof(proof, REQUEST, OPTIONS), { jkt: key.jkt, jti: 'j1', iat: NOW, alg }, alg);
  }
});

t.test('§4.3 checks 1-7: one header, one JWT, typ, alg, signature, public key', async (t) => {
  const key = await dpopKey();
  const other = await dpopKey();
  const claims = { htu: HTU, iat: NOW };
  t.throws(() => singleDpopHeader(['a.b.c', 'a.b.c']), { code: 'invalid_dpop_proof', description: 'more than one DPoP header' });
  t.throws(() => singleDpopHeader('a.b.c, a.b.c'), { code: 'invalid_dpop_proof' }, 'two headers joined by Node');
  t.equal(singleDpopHeader(undefined), undefined);
  await refusal(t, verifyDpopProof('not-a-jwt', REQUEST, OPTIONS), 'invalid_dpop_proof', 'the DPoP proof is not a compact JWT');
  await refusal(
    t,
    verifyDpopProof(`${await dpopProof(key, claims)}.x`, REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof is not a compact JWT',
  );
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, claims, { typ: 'JWT' }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof typ must be dpop+jwt',
  );
  await refusal(
    t,
    verifyDpopProof(unsignedProof(key.publicJwk, { jti: 'x', htm: 'POST', htu: HTU, iat: NOW }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof is not a compact JWT',
  );
  const noneWithSignature = `${unsignedProof(key.publicJwk, { jti: 'x', htm: 'POST', htu: HTU, iat: NOW })}AAAA`;
  await refusal(t, verifyDpopProof(noneWithSignature, REQUEST, OPTIONS), 'invalid_dpop_proof', 'the DPoP proof alg is not accepted');
  const hs256 = await new SignJWT({ jti: 'x', htm: 'POST', htu: HTU, iat: NOW })
    .setProtectedHeader({
      alg: 'HS256',
      typ: 'dpop+jwt',
      jwk: { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA' } as Record<string, string>,
    })
    .sign(new TextEncoder().encode('secret-secret-secret-secret-secret'));
  await refusal(t, verifyDpopProof(hs256, REQUEST, OPTIONS), 'invalid_dpop_proof', 'the DPoP proof alg is not accepted');
  const es384 = await dpopKey('ES384');
  await refusal(
    t,
    verifyDpopProof(await dpopProof(es384, claims), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof alg is not accepted',
  );
  t.match(
    await verifyDpopProof(await dpopProof(es384, claims), REQUEST, { ...OPTIONS, algorithms: ['ES384'] }),
    { alg: 'ES384' },
    'unless configured',
  );
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, claims, { jwk: key.privateJwk }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the jwk header must not contain a private key',
  );
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, claims, { jwk: other.publicJwk }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof signature does not verify with its jwk',
  );
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, claims, { jwk: undefined }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the jwk header must be a JSON object',
  );
});

t.test('§4.3 checks 3, 8, 9, 11: claims, htm, htu, iat window', async (t) => {
  const key = await dpopKey();
  const proof = (claims: Partial<Parameters<typeof dpopProof>[1]>) => dpopProof(key, { htu: HTU, iat: NOW, ...claims });
  await refusal(
    t,
    verifyDpopProof(await proof({ extra: { jti: undefined } }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof jti is missing or too long',
  );
  await refusal(
    t,
    verifyDpopProof(await proof({ extra: { htm: undefined } }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof lacks htm, htu or iat',
  );
  await refusal(
    t,
    verifyDpopProof(await proof({ extra: { iat: String(NOW) } }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof lacks htm, htu or iat',
  );
  await refusal(
    t,
    verifyDpopProof(await proof({ htm: 'GET' }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof htm does not match the request method',
  );
  for (const htu of [
    'https://as.example.com/oauth2/revoke',
    'https://other.example.com/oauth2/token',
    'http://as.example.com/oauth2/token',
    'token',
  ]) {
    await refusal(
      t,
      verifyDpopProof(await proof({ htu }), REQUEST, OPTIONS),
      'invalid_dpop_proof',
      'the DPoP proof htu does not match the request URI',
    );
  }
  for (const htu of [
    'https://AS.example.com:443/oauth2/token?x=1#f',
    'https://as.example.com/oauth2/./%74oken',
    'HTTPS://as.example.com/a/../oauth2/token',
  ]) {
    t.match(await verifyDpopProof(await proof({ htu }), REQUEST, OPTIONS), { jkt: key.jkt }, `normalized: ${htu}`);
  }
  t.match(
    await verifyDpopProof(await proof({}), { method: 'POST', url: `${HTU}?a=b` }, OPTIONS),
    { jkt: key.jkt },
    "the request's query is ignored",
  );
  t.match(await verifyDpopProof(await proof({ iat: NOW - 60 }), REQUEST, OPTIONS), { iat: NOW - 60 }, 'at the edge of the window');
  t.match(await verifyDpopProof(await proof({ iat: NOW + 60 }), REQUEST, OPTIONS), { iat: NOW + 60 });
  await refusal(
    t,
    verifyDpopProof(await proof({ iat: NOW - 61 }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof iat is outside the acceptable window',
  );
  await refusal(
    t,
    verifyDpopProof(await proof({ iat: NOW + 61 }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof iat is outside the acceptable window',
  );
  await refusal(
    t,
    verifyDpopProof(await proof({ extra: { exp: NOW - 1 } }), REQUEST, OPTIONS),
    'invalid_dpop_proof',
    'the DPoP proof has expired',
  );
});

t.test('§4.3 check 12 (ath) and §8 (nonce)', async (t) => {
  const key = await dpopKey();
  const withToken = { ...OPTIONS, accessToken: 'the-access-token' };
  t.match(await verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW, accessToken: 'the-access-token' }), REQUEST, withToken), {
    jkt: key.jkt,
  });
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW, accessToken: 'another' }), REQUEST, withToken),
    'invalid_dpop_proof',
    'the DPoP proof ath does not match the access token',
  );
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }), REQUEST, withToken),
    'invalid_dpop_proof',
    'the DPoP proof ath does not match the access token',
  );

  const nonces = new DpopNonces('session-secret-0123456789abcdefghijkl', 60);
  const withNonce = { ...OPTIONS, acceptNonce: (nonce: string) => nonces.accepts(nonce, NOW) };
  const expected = 'the authorization server requires a DPoP nonce: use the one in the DPoP-Nonce header';
  await refusal(t, verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }), REQUEST, withNonce), 'use_dpop_nonce', expected);
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW, nonce: 'made-up' }), REQUEST, withNonce),
    'use_dpop_nonce',
    expected,
  );
  t.match(await verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW, nonce: nonces.current(NOW) }), REQUEST, withNonce), {
    jkt: key.jkt,
  });
});

t.test('stateless nonces: current and previous step accepted, nothing else', async (t) => {
  const a = new DpopNonces('session-secret-0123456789abcdefghijkl', 60);
  const b = new DpopNonces('session-secret-0123456789abcdefghijkl', 60);
  const other = new DpopNonces('another-secret-0123456789abcdefghijk', 60);
  const nonce = a.current(NOW);
  t.match(nonce, /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
  t.ok(b.accepts(nonce, NOW), 'another instance with the same secret accepts it');
  t.notOk(other.accepts(nonce, NOW), 'not under another secret');
  t.ok(a.accepts(nonce, NOW + 60), 'the next step still accepts it');
  t.notOk(a.accepts(nonce, NOW + 120), 'two steps later it is stale');
  t.notOk(a.accepts(a.current(NOW + 120), NOW), 'a nonce from the future is refused');
  const [step, mac] = nonce.split('.') as [string, string];
  t.notOk(a.accepts(`${step}.${mac.slice(0, -1)}A`, NOW), 'a forged MAC');
});

t.test('htu normalization (RFC 3986 §6.2.2, §6.2.3) and the replay window', async (t) => {
  t.equal(normalizedHtu('HTTPS://Example.COM:443/a/%7euser/%2f?q#f'), 'https://example.com/a/~user/%2F');
  t.equal(normalizedHtu('https://example.com'), 'https://example.com/');
  t.equal(normalizedHtu('https://user:pw@example.com/'), undefined, 'no credentials');
  t.equal(normalizedHtu('urn:x:y'), undefined);
  t.equal(replayWindowSeconds(60), 121, 'a proof with iat at now+60 is acceptable until now+120');
  t.equal(replayWindowSeconds(-5), 1, 'never negative');
});

t.test('imported proof keys are cached by thumbprint, bounded, and never let a wrong signature through', async (t) => {
  const cache = new ProofKeyCache(1);
  const withCache = { ...OPTIONS, keyCache: cache };
  const key = await dpopKey();
  const other = await dpopKey();
  t.match(await verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }), REQUEST, withCache), { jkt: key.jkt });
  t.match(await verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }), REQUEST, withCache), { jkt: key.jkt }, 'from the cache');
  const forged = await dpopProof(other, { htu: HTU, iat: NOW }, { jwk: key.publicJwk });
  await refusal(
    t,
    verifyDpopProof(forged, REQUEST, withCache),
    'invalid_dpop_proof',
    'the DPoP proof signature does not verify with its jwk',
  );
  t.match(
    await verifyDpopProof(await dpopProof(other, { htu: HTU, iat: NOW }), REQUEST, withCache),
    { jkt: other.jkt },
    'evicts the older key',
  );
  t.match(await verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }), REQUEST, withCache), { jkt: key.jkt }, 'imported again');
  await refusal(
    t,
    verifyDpopProof(await dpopProof(key, { htu: HTU, iat: NOW }, { jwk: { kty: 'EC', crv: 'P-256' } }), REQUEST, withCache),
    'invalid_dpop_proof',
    'the jwk header is not a public key of a known type',
  );
});
