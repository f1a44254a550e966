import t from 'tap';
import type { KeyRecord, SigningAlgorithm } from '../../src/keys/key-file.js';
import { signingAlgorithmsAt } from '../../src/keys/lifecycle.js';
import {
  accessTokenAlgorithmOf,
  defaultChains,
  missingSigningAlgorithms,
  requiredSigningAlgorithms,
  signingAlgorithmChecks,
} from '../../src/keys/signing-algorithms.js';

/** Which chains a server needs, and which one signs access tokens (pure rules of src/keys/signing-algorithms.ts). */

const key = (kid: string, alg: SigningAlgorithm, created_at: number, fields: Partial<KeyRecord> = {}): KeyRecord => ({
  kid,
  alg,
  created_at,
  signs_from: created_at,
  jwk: { kty: 'EC', kid, alg, d: 'x' },
  ...fields,
});

t.test('accessTokenAlgorithmOf: ACCESS_TOKEN_SIGNING_ALG, else ES256 when present, else the newest key (RS256 last)', async (t) => {
  const es = key('es', 'ES256', 0);
  const rs = key('rs', 'RS256', 50);
  const ed = key('ed', 'EdDSA', 10);
  const ps = key('ps', 'PS256', 20);
  t.equal(accessTokenAlgorithmOf([], undefined), 'ES256', 'an empty folder');
  t.equal(accessTokenAlgorithmOf([es, rs], undefined), 'ES256', 'the default folder: ES256 and RS256');
  t.equal(accessTokenAlgorithmOf([es, rs], 'RS256'), 'RS256', 'configured');
  t.equal(accessTokenAlgorithmOf([], 'PS256'), 'PS256', 'configured, even with no such key (the keystore refuses that)');
  t.equal(accessTokenAlgorithmOf([rs], undefined), 'RS256', 'a folder from before chains with RS256 keys only');
  t.equal(accessTokenAlgorithmOf([ed, ps], undefined), 'PS256', 'a folder from before chains: its newest key signed');
  t.equal(accessTokenAlgorithmOf([ed, rs], undefined), 'EdDSA', 'an RS256 chain started for ID tokens does not take access tokens over');
});

t.test('defaultChains: what keys rotate starts when missing', async (t) => {
  t.same(defaultChains([], undefined), ['ES256', 'RS256']);
  t.same(defaultChains([], 'RS256'), ['RS256'], 'access tokens signed with RS256: one chain for both');
  t.same(defaultChains([], 'EdDSA'), ['EdDSA', 'RS256']);
  t.same(defaultChains([key('rs', 'RS256', 0)], undefined), ['RS256'], 'an RS256 folder from before chains gets no ES256 chain');
  t.same(defaultChains([key('ed', 'EdDSA', 0)], undefined), ['EdDSA', 'RS256']);
});

t.test('requiredSigningAlgorithms: the access-token algorithm, RS256, and each client choice, once each', async (t) => {
  t.same(requiredSigningAlgorithms('ES256', []), ['ES256', 'RS256']);
  t.same(requiredSigningAlgorithms('RS256', []), ['RS256']);
  const clients = [
    { clientId: 'a' },
    { clientId: 'b', idTokenSignedResponseAlg: 'PS256' as const },
    { clientId: 'c', idTokenSignedResponseAlg: 'EdDSA' as const },
    { clientId: 'd', idTokenSignedResponseAlg: 'PS256' as const },
    { clientId: 'e', idTokenSignedResponseAlg: undefined },
  ];
  t.same(requiredSigningAlgorithms('ES256', clients), ['ES256', 'EdDSA', 'RS256', 'PS256'], 'in the order of SIGNING_ALGORITHMS');
});

t.test('signingAlgorithmChecks and missingSigningAlgorithms: each needed algorithm, and whether a key of it signs', async (t) => {
  const keys = [key('es', 'ES256', 0), key('ps', 'PS256', 0, { signs_until: 50, publish_until: 100 })];
  const chains = (accessTokenAlgorithm: SigningAlgorithm) => ({
    accessTokenAlgorithm,
    signingAlgorithmsAt: (now: number) => signingAlgorithmsAt(keys, now),
  });
  const clients = [{ clientId: 'pss', idTokenSignedResponseAlg: 'PS256' as const }];
  t.same(signingAlgorithmChecks(chains('ES256'), clients, 10), { ES256: true, RS256: false, PS256: true });
  t.same(signingAlgorithmChecks(chains('ES256'), clients, 60), { ES256: true, RS256: false, PS256: false });
  t.same(signingAlgorithmChecks(chains('ES256'), [], 60), { ES256: true, RS256: false }, 'a key nobody needs is not reported');
  t.same(missingSigningAlgorithms(chains('ES256'), clients, 60), [
    {
      alg: 'RS256',
      message:
        'no RS256 key signs now: ID tokens that need RS256 cannot be signed (never with another algorithm); run "oauth2-token-service keys rotate --alg RS256"',
    },
    {
      alg: 'PS256',
      message:
        'no PS256 key signs now: ID tokens that need PS256 cannot be signed (never with another algorithm); run "oauth2-token-service keys rotate --alg PS256"',
    },
  ]);
  t.same(missingSigningAlgorithms(chains('EdDSA'), [], 60)[0], {
    alg: 'EdDSA',
    message:
      'no EdDSA key signs now: access tokens cannot be signed (never with another algorithm); run "oauth2-token-service keys rotate --alg EdDSA"',
  });
});
