import { constants, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import t, { type Test } from 'tap';
import {
  CompactJwsRefused,
  isVerifiableAlgorithm,
  jwkThumbprint,
  parseCompactJws,
  publicKeyOf,
  verifyCompactJws,
  verifyCompactJwsOnPool,
} from '@oauth2-token-service/verifier/compact-jws';
import { ProofKeyCache } from '@oauth2-token-service/verifier/dpop-key-cache';
import { verifyDpopProof } from '@oauth2-token-service/verifier/dpop-proof';

/**
 * The node:crypto JWS verification that replaced jose on the per-request paths must refuse
 * everything jose refused: algorithms outside the asymmetric list, a key of another type or
 * curve than the algorithm's, short RSA keys, DER-encoded ECDSA signatures, other PSS salt
 * lengths, tampering, `crit`, private keys.
 */

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const CLAIMS = { sub: 'x', iat: 1 };

function signed(
  header: Record<string, unknown>,
  key: KeyObject,
  how: Parameters<typeof sign>[2] | 'der' = key,
  digest: string | null = 'sha256',
) {
  const input = `${encode(header)}.${encode(CLAIMS)}`;
  const options = how === 'der' ? { key, dsaEncoding: 'der' as const } : how;
  return `${input}.${sign(digest, Buffer.from(input), options).toString('base64url')}`;
}

const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve });
const jwkOf = (key: KeyObject) => key.export({ format: 'jwk' }) as Record<string, unknown>;
const p256 = ec('P-256');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');

function refused(t: Test, what: CompactJwsRefused['what'], run: () => unknown, message: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (err) {
    thrown = err;
  }
  t.ok(thrown instanceof CompactJwsRefused && thrown.what === what, `refused (${what}): ${message}`);
}

t.test('valid signatures of every algorithm family verify, with the key made from the JWK', async (t) => {
  const es = signed({ alg: 'ES256' }, p256.privateKey, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
  t.doesNotThrow(() => verifyCompactJws(parseCompactJws(es), 'ES256', publicKeyOf(jwkOf(p256.publicKey), 'ES256')), 'ES256');
  const rs = signed({ alg: 'RS256' }, rsa.privateKey);
  t.doesNotThrow(() => verifyCompactJws(parseCompactJws(rs), 'RS256', publicKeyOf(jwkOf(rsa.publicKey), 'RS256')), 'RS256');
  const pssOptions = { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
  const ps = signed({ alg: 'PS256' }, rsa.privateKey, pssOptions);
  t.doesNotThrow(() => verifyCompactJws(parseCompactJws(ps), 'PS256', publicKeyOf(jwkOf(rsa.publicKey), 'PS256')), 'PS256');
  for (const alg of ['EdDSA', 'Ed25519']) {
    const eddsa = signed({ alg }, ed.privateKey, ed.privateKey, null);
    t.doesNotThrow(() => verifyCompactJws(parseCompactJws(eddsa), alg, publicKeyOf(jwkOf(ed.publicKey), alg)), alg);
  }
  t.same(parseCompactJws(es).header, { alg: 'ES256' });
});

t.test('RFC 7638 thumbprints equal jose’s for EC, OKP and RSA keys', async (t) => {
  for (const key of [p256.publicKey, ec('P-384').publicKey, ed.publicKey, rsa.publicKey]) {
    const jwk = { ...jwkOf(key), kid: 'ignored', alg: 'ignored' };
    t.equal(jwkThumbprint(jwk), await calculateJwkThumbprint(jwk as JWK, 'sha256'));
  }
  refused(t, 'key', () => jwkThumbprint({ kty: 'EC', crv: 'P-256', x: 'AA' }), 'an EC key without y');
  refused(t, 'key', () => jwkThumbprint({ kty: 'XYZ' }), 'an unknown key type');
  refused(t, 'key', () => jwkThumbprint({ kty: 'RSA', n: 'AA', e: 1 }), 'a member that is no string');
});

t.test('only asymmetric algorithms, each with its own key type and curve', async (t) => {
  for (const alg of ['none', 'HS256', 'HS512', 'ML-DSA-44', 'es256', '__proto__', 'constructor']) {
    t.notOk(isVerifiableAlgorithm(alg), `${alg} is not verified`);
    refused(t, 'key', () => publicKeyOf(jwkOf(p256.publicKey), alg), `no key for ${alg}`);
  }
  refused(t, 'key', () => publicKeyOf(jwkOf(p256.publicKey), 'ES384'), 'a P-256 key for ES384');
  refused(t, 'key', () => publicKeyOf(jwkOf(ec('P-384').publicKey), 'ES256'), 'a P-384 key for ES256');
  refused(t, 'key', () => publicKeyOf(jwkOf(p256.publicKey), 'RS256'), 'an EC key for RS256');
  refused(t, 'key', () => publicKeyOf(jwkOf(p256.publicKey), 'EdDSA'), 'an EC key for EdDSA');
  refused(t, 'key', () => publicKeyOf(jwkOf(rsa.publicKey), 'ES256'), 'an RSA key for ES256');
  refused(t, 'key', () => publicKeyOf(jwkOf(generateKeyPairSync('ed448').publicKey), 'EdDSA'), 'an Ed448 key for EdDSA');
  const short = generateKeyPairSync('rsa', { modulusLength: 1024 });
  refused(t, 'key', () => publicKeyOf(jwkOf(short.publicKey), 'RS256'), 'RSA under 2048 bits (RFC 7518 §3.3)');
  refused(
    t,
    'key',
    () => publicKeyOf({ ...jwkOf(p256.publicKey), y: jwkOf(ec('P-256').publicKey).x }, 'ES256'),
    'a point not on the curve',
  );
  // A key made for another algorithm does not verify this one, whatever the caller passes.
  const es384 = signed({ alg: 'ES384' }, ec('P-384').privateKey, { key: ec('P-384').privateKey, dsaEncoding: 'ieee-p1363' }, 'sha384');
  refused(t, 'signature', () => verifyCompactJws(parseCompactJws(es384), 'ES384', p256.publicKey), 'a P-256 key object for ES384');
  const es = signed({ alg: 'ES256' }, p256.privateKey, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
  refused(t, 'signature', () => verifyCompactJws(parseCompactJws(es), 'ES256', rsa.publicKey), 'an RSA key object for ES256');
  refused(t, 'signature', () => verifyCompactJws(parseCompactJws(es), 'ES256', p256.privateKey), 'a private key object');
  refused(t, 'signature', () => verifyCompactJws(parseCompactJws(es), 'ES384', p256.publicKey), 'alg other than the header one');
});

t.test('a key checked once for an algorithm is remembered for that algorithm only', async (t) => {
  const key = ec('P-256');
  const es256 = parseCompactJws(signed({ alg: 'ES256' }, key.privateKey, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }));
  const es384 = parseCompactJws(signed({ alg: 'ES384' }, key.privateKey, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }, 'sha384'));
  verifyCompactJws(es256, 'ES256', key.publicKey);
  refused(t, 'signature', () => verifyCompactJws(es384, 'ES384', key.publicKey), 'the same P-256 key for ES384, after it passed for ES256');
  await t.rejects(verifyCompactJwsOnPool(es384, 'ES384', key.publicKey), CompactJwsRefused, 'and on the pool');
  t.doesNotThrow(() => verifyCompactJws(es256, 'ES256', key.publicKey), 'and still for ES256');
  const short = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const rs256 = parseCompactJws(signed({ alg: 'RS256' }, short.privateKey));
  for (let i = 0; i < 2; i += 1)
    refused(t, 'signature', () => verifyCompactJws(rs256, 'RS256', short.publicKey), 'a short RSA key, every time');
});

t.test('public keys only, key_ops and ext as WebCrypto required them', async (t) => {
  const jwk = jwkOf(p256.publicKey);
  refused(t, 'key', () => publicKeyOf(jwkOf(p256.privateKey), 'ES256'), 'a private JWK');
  refused(t, 'key', () => publicKeyOf({ ...jwk, key_ops: ['sign'] }, 'ES256'), 'key_ops without verify');
  refused(t, 'key', () => publicKeyOf({ ...jwk, key_ops: ['verify', 'verify'] }, 'ES256'), 'key_ops repeated');
  refused(t, 'key', () => publicKeyOf({ ...jwk, ext: 'yes' }, 'ES256'), 'ext not a boolean');
  t.ok(publicKeyOf({ ...jwk, key_ops: ['verify'], ext: true, use: 'sig', kid: 'k' }, 'ES256'), 'key_ops [verify] and ext true');
});

t.test('tampered, DER-encoded, wrongly padded and crit-bearing JWS are refused', async (t) => {
  const key = publicKeyOf(jwkOf(p256.publicKey), 'ES256');
  const good = signed({ alg: 'ES256' }, p256.privateKey, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
  const [h, p, s] = good.split('.') as [string, string, string];
  const check = (jws: string) => () => verifyCompactJws(parseCompactJws(jws), 'ES256', key);
  refused(t, 'signature', check(`${h}.${encode({ ...CLAIMS, sub: 'y' })}.${s}`), 'a changed payload');
  const flipped = Buffer.from(s, 'base64url');
  flipped[10] = (flipped[10] as number) ^ 1;
  refused(t, 'signature', check(`${h}.${p}.${flipped.toString('base64url')}`), 'a changed signature');
  refused(t, 'signature', check(`${h}.${p}.`), 'no signature');
  refused(t, 'signature', check(signed({ alg: 'ES256' }, p256.privateKey, 'der')), 'an ECDSA signature in DER (RFC 7518 §3.4: R || S)');
  const crit = signed({ alg: 'ES256', crit: ['b64'], b64: true }, p256.privateKey, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
  refused(t, 'signature', check(crit), 'crit (RFC 7515 §4.1.11: no extension is understood)');
  const rsaKey = publicKeyOf(jwkOf(rsa.publicKey), 'PS256');
  for (const saltLength of [0, 20, constants.RSA_PSS_SALTLEN_MAX_SIGN]) {
    const ps = signed({ alg: 'PS256' }, rsa.privateKey, { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength });
    refused(t, 'signature', () => verifyCompactJws(parseCompactJws(ps), 'PS256', rsaKey), `PSS salt ${saltLength}`);
  }
  const rs = signed({ alg: 'PS256' }, rsa.privateKey);
  refused(t, 'signature', () => verifyCompactJws(parseCompactJws(rs), 'PS256', rsaKey), 'a PKCS#1 v1.5 signature as PS256');
  const edKey = publicKeyOf(jwkOf(ed.publicKey), 'EdDSA');
  refused(
    t,
    'signature',
    () => verifyCompactJws(parseCompactJws(`${encode({ alg: 'EdDSA' })}.${p}.`), 'EdDSA', edKey),
    'EdDSA, no signature',
  );
  refused(
    t,
    'signature',
    () => verifyCompactJws(parseCompactJws(`${encode({ alg: 'RS256' })}.${p}.`), 'RS256', rsaKey),
    'RS256, no signature',
  );
  refused(t, 'malformed', () => parseCompactJws(`${h}.${p}`), 'two segments');
  refused(t, 'malformed', () => parseCompactJws(`${h}.${p}.${s}.x`), 'four segments');
  refused(t, 'malformed', () => parseCompactJws(`${h}A.${p}.${s}`), 'a segment of 4n + 1 characters');
  refused(t, 'malformed', () => parseCompactJws(`${h}.${p}.${s}=`), 'padding');
  refused(t, 'malformed', () => parseCompactJws(`${Buffer.from('{"alg":').toString('base64url')}.${p}.${s}`), 'a header that is no JSON');
  refused(t, 'malformed', () => parseCompactJws(`${encode(['ES256'])}.${p}.${s}`), 'a header that is no object');
  refused(
    t,
    'malformed',
    () => parseCompactJws(`${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${p}.${s}`),
    'a header that is no UTF-8',
  );
});

t.test('DPoP proofs (RFC 9449 §4.3 check 6) verified this way refuse the same forgeries', async (t) => {
  const htu = 'https://as.example.com/oauth2/token';
  const now = 1_800_000_000;
  const uncached = { algorithms: ['ES256', 'ES384'], windowSeconds: 60, now };
  const options = { ...uncached, keyCache: new ProofKeyCache() };
  const proof = (header: Record<string, unknown>, how: Parameters<typeof sign>[2] | 'der', key = p256.privateKey) => {
    const input = `${encode({ typ: 'dpop+jwt', ...header })}.${encode({ jti: 'j', htm: 'POST', htu, iat: now })}`;
    const options = how === 'der' ? { key, dsaEncoding: 'der' as const } : how;
    return `${input}.${sign('sha256', Buffer.from(input), options).toString('base64url')}`;
  };
  const jwk = jwkOf(p256.publicKey);
  const p1363 = { key: p256.privateKey, dsaEncoding: 'ieee-p1363' as const };
  t.match(await verifyDpopProof(proof({ alg: 'ES256', jwk }, p1363), { method: 'POST', url: htu }, options), { jti: 'j' });
  const forgeries: [string, string][] = [
    [proof({ alg: 'ES256', jwk }, 'der'), 'a DER signature'],
    [proof({ alg: 'ES256', jwk, crit: ['b64'], b64: true }, p1363), 'crit'],
    [proof({ alg: 'ES384', jwk }, p1363), 'a P-256 key under ES384'],
    [proof({ alg: 'ES256', jwk: jwkOf(ec('P-384').publicKey) }, p1363), 'a P-384 jwk under ES256'],
    [proof({ alg: 'ES256', jwk: { ...jwk, key_ops: ['sign'] } }, p1363), 'key_ops without verify'],
  ];
  for (const [forged, what] of forgeries) {
    // Without the cache: one thumbprint is one key's material, whatever its key_ops say.
    const err = await verifyDpopProof(forged, { method: 'POST', url: htu }, uncached).catch((e: unknown) => e);
    t.match(
      err,
      { code: 'invalid_dpop_proof', description: 'the DPoP proof signature does not verify with its jwk', reason: 'signature' },
      what,
    );
  }
});

t.test('on the thread pool: the same JWS verify and the same are refused, with the same reason', async (t) => {
  const es = (header: Record<string, unknown>) => signed(header, p256.privateKey, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
  const good = es({ alg: 'ES256' });
  const [h, p, s] = good.split('.') as [string, string, string];
  const flipped = Buffer.from(s, 'base64url');
  flipped[10] = (flipped[10] as number) ^ 1;
  const esKey = publicKeyOf(jwkOf(p256.publicKey), 'ES256');
  const rsaKey = publicKeyOf(jwkOf(rsa.publicKey), 'RS256');
  const pss = { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
  const cases: [string, string, string, KeyObject, boolean][] = [
    ['ES256', good, 'ES256', esKey, true],
    ['RS256', signed({ alg: 'RS256' }, rsa.privateKey), 'RS256', rsaKey, true],
    ['PS256', signed({ alg: 'PS256' }, rsa.privateKey, pss), 'PS256', publicKeyOf(jwkOf(rsa.publicKey), 'PS256'), true],
    ['EdDSA', signed({ alg: 'EdDSA' }, ed.privateKey, ed.privateKey, null), 'EdDSA', publicKeyOf(jwkOf(ed.publicKey), 'EdDSA'), true],
    ['a changed payload', `${h}.${encode({ ...CLAIMS, sub: 'y' })}.${s}`, 'ES256', esKey, false],
    ['a changed signature', `${h}.${p}.${flipped.toString('base64url')}`, 'ES256', esKey, false],
    ['no signature', `${h}.${p}.`, 'ES256', esKey, false],
    ['DER', signed({ alg: 'ES256' }, p256.privateKey, 'der'), 'ES256', esKey, false],
    ['crit', es({ alg: 'ES256', crit: ['b64'], b64: true }), 'ES256', esKey, false],
    ['an RSA key for ES256', good, 'ES256', rsa.publicKey, false],
    ['a private key', good, 'ES256', p256.privateKey, false],
    ['alg other than the header one', good, 'ES384', p256.publicKey, false],
    ['a PKCS#1 v1.5 signature as PS256', signed({ alg: 'PS256' }, rsa.privateKey), 'PS256', rsaKey, false],
  ];
  for (const [what, jws, alg, key, verifies] of cases) {
    let here: unknown;
    try {
      verifyCompactJws(parseCompactJws(jws), alg, key);
    } catch (err) {
      here = err;
    }
    const onPool = await verifyCompactJwsOnPool(parseCompactJws(jws), alg, key).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (verifies) {
      t.equal(here, undefined, `${what} verifies here`);
      t.equal(onPool, undefined, `${what} verifies on the pool`);
      continue;
    }
    t.ok(onPool instanceof CompactJwsRefused && onPool.what === 'signature', `${what}: refused on the pool`);
    t.equal((onPool as Error).message, (here as Error).message, `${what}: for the same reason`);
  }
});
