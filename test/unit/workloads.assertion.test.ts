import t from 'tap';
import { checkRegisteredClaims, peekAssertion, WorkloadRefused } from '../../src/workloads/assertion.js';
import type { WorkloadTrust } from '../../src/workloads/trusts.js';

/**
 * The RFC 7519 claims jose's jwtVerify checked for a workload's JWT before its signature moved
 * to node:crypto (RFC 7523 §3 items 1, 4, 5): the same checks, in the same order, with the same
 * refusals, 60 seconds of skew.
 */

const TRUST = { id: 'mesh', issuer: 'spiffe://example.org', rules: [] } as unknown as WorkloadTrust;
const NOW = 1_800_000_000;
const VALID = { iss: 'spiffe://example.org', sub: 'w', exp: NOW + 60, iat: NOW, nbf: NOW };

function refusal(claims: Record<string, unknown>): [string, string] | undefined {
  try {
    checkRegisteredClaims(claims, TRUST, NOW);
    return undefined;
  } catch (err) {
    if (!(err instanceof WorkloadRefused)) throw err;
    t.equal(err.trust, 'mesh');
    return [err.reason, err.message];
  }
}

t.test('RFC 7523 §3: iss the trust’s, exp required and not passed, nbf reached, NumericDates numbers', async (t) => {
  t.equal(refusal(VALID), undefined, 'valid');
  t.equal(refusal({ ...VALID, exp: NOW - 60 + 1 }), undefined, 'expired less than the skew ago');
  t.equal(refusal({ ...VALID, nbf: NOW + 60 }), undefined, 'valid within the skew');
  t.same(refusal({ ...VALID, exp: NOW - 60 }), ['expired', 'the JWT has expired']);
  t.same(refusal({ ...VALID, nbf: NOW + 61 }), ['not_yet_valid', 'nbf is in the future']);
  const { iss: _iss, ...noIss } = VALID;
  const { exp: _exp, ...noExp } = VALID;
  t.same(refusal(noIss), ['malformed', 'iss: missing required "iss" claim']);
  t.same(refusal(noExp), ['malformed', 'exp: missing required "exp" claim']);
  t.same(refusal({ ...noIss, exp: undefined }), ['malformed', 'iss: missing required "iss" claim'], 'iss is looked for first');
  t.same(refusal({ ...VALID, iss: 'spiffe://other.example' }), ['malformed', 'iss: unexpected "iss" claim value']);
  for (const name of ['exp', 'nbf', 'iat'])
    for (const value of ['1800000000', null, [NOW]])
      t.same(
        refusal({ ...VALID, [name]: value }),
        ['malformed', `${name}: "${name}" claim must be a number`],
        `${name} ${JSON.stringify(value)}`,
      );
  t.same(refusal({ ...VALID, exp: NOW - 61, nbf: NOW + 61 }), ['not_yet_valid', 'nbf is in the future'], 'nbf before exp');
});

t.test('a peeked assertion keeps its JWS: what its signature covers is what was decoded', async (t) => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const jwt = `${encode({ alg: 'ES256', kid: 'k' })}.${encode(VALID)}.c2ln`;
  const peeked = peekAssertion(jwt);
  t.same(peeked?.claims, VALID);
  t.equal(peeked?.jws.signingInput, `${encode({ alg: 'ES256', kid: 'k' })}.${encode(VALID)}`);
  for (const bad of ['', 'a.b', `${encode(['x'])}.${encode(VALID)}.c2ln`, `${encode({ alg: 'ES256' })}.${encode('x')}.c2ln`])
    t.equal(peekAssertion(bad), undefined, `not a JWT: ${bad.slice(0, 12)}`);
});

t.test('peeking the same assertion again decodes nothing: the same answer, frozen; another assertion is decoded anew', async (t) => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const jwt = `${encode({ alg: 'ES256', kid: 'k' })}.${encode(VALID)}.c2ln`;
  const first = peekAssertion(jwt)!;
  t.equal(peekAssertion(jwt), first, 'routing and verifying one request share one decoding');
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.claims) && Object.isFrozen(first.header) && Object.isFrozen(first.jws));
  t.throws(() => {
    (first.claims as { sub?: string }).sub = 'someone-else';
  }, TypeError);
  t.equal(peekAssertion(jwt)!.claims.sub, VALID.sub, 'no reader changes what the next one sees');
  const other = `${encode({ alg: 'ES256', kid: 'k' })}.${encode({ ...VALID, sub: 'other' })}.c2ln`;
  t.equal(peekAssertion(other)!.claims.sub, 'other');
  t.not(peekAssertion(jwt), first, 'only the last assertion is kept: the first is decoded again');
  t.same(peekAssertion(jwt)!.claims, VALID);
  t.equal(peekAssertion('a.b'), undefined);
  t.equal(peekAssertion('a.b'), undefined, 'a malformed one stays refused when asked again');
});
