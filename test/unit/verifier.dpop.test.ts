import Fastify from 'fastify';
// Imported through the package's public exports, as resource servers do.
import {
  createVerifier,
  memoryReplayCache,
  redisReplayCache,
  ReplayCacheUnavailableError,
  TokenVerificationError,
  type Verifier,
  type VerifierDpopOptions,
} from '@oauth2-token-service/verifier';
import { requireScope } from '@oauth2-token-service/verifier/fastify';
import t, { type Test } from 'tap';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, SECRETS } from '../helpers/server.js';

const API = 'https://api.example.com/things/1';
const ALGS = 'ES256 EdDSA RS256 PS256';

t.test('the verifier with DPoP-bound tokens (RFC 9449 §7)', async (t) => {
  const { app, clock } = await buildTestServer(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const jwksUri = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/.well-known/jwks.json`;
  const now = () => Math.floor(clock.now / 1000);
  const make = (extra: { dpop?: VerifierDpopOptions } = {}) =>
    createVerifier({ issuer: ISSUER, audience: ISSUER, jwksUri, clock: () => clock.now, jwksCooldownSeconds: 0, ...extra });
  const verifier = make({ dpop: {} });

  const issued = async (key?: DpopKey): Promise<string> => {
    const proof = key ? { dpop: await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: now() }) } : {};
    const res = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service), ...proof },
      payload: form({ grant_type: 'client_credentials', scope: 'read' }),
    });
    return res.json().access_token as string;
  };
  const presentation = async (key: DpopKey, accessToken: string | undefined, claims: { htm?: string; htu?: string } = {}) => ({
    proof: await dpopProof(key, { htm: 'GET', htu: API, iat: now(), ...(accessToken !== undefined ? { accessToken } : {}), ...claims }),
    method: 'GET',
    url: API,
  });
  const refusal = async (t: Test, v: Verifier, promise: Promise<unknown>, code: string, description: string, challenge: string) => {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, TokenVerificationError);
    t.match(err, { code, description, status: 401 });
    t.equal((err as TokenVerificationError).wwwAuthenticate, challenge);
    t.ok(v);
  };
  const dpopError = (error: string, description: string) =>
    `DPoP realm="${ISSUER}", error="${error}", error_description="${description}", algs="${ALGS}"`;
  // RFC 9449 §7.2 (Figure 18): the error in the scheme used, then the challenge of the scheme to switch to.
  const asBearer = 'the access token is DPoP-bound: send it with the DPoP scheme and a proof';
  const switchToDpop = (algs = ALGS) =>
    `Bearer realm="${ISSUER}", error="invalid_token", error_description="${asBearer}", DPoP realm="${ISSUER}", algs="${algs}"`;
  const notBound = 'the access token is not DPoP-bound: send it with the Bearer scheme';
  const switchToBearer = `${dpopError('invalid_token', notBound)}, Bearer realm="${ISSUER}"`;

  const key = await dpopKey();
  const other = await dpopKey();
  const token = await issued(key);

  t.test('a bound token with a proof by its key is accepted, once per proof', async (t) => {
    const shown = await presentation(key, token);
    const claims = await verifier.verify(token, { requiredScopes: ['read'], dpop: shown });
    t.same(claims.cnf, { jkt: key.jkt });
    const replay = 'the DPoP proof was already used';
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: shown }),
      'invalid_dpop_proof',
      replay,
      dpopError('invalid_dpop_proof', replay),
    );
  });

  t.test('refused: as Bearer, without a proof, with a proof by another key, without or with a wrong ath', async (t) => {
    await refusal(t, verifier, verifier.verify(token), 'invalid_token', asBearer, switchToDpop());
    const noProof = 'a DPoP proof is required with the DPoP scheme';
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: { proof: undefined, method: 'GET', url: API } }),
      'invalid_dpop_proof',
      noProof,
      dpopError('invalid_dpop_proof', noProof),
    );
    const otherKey = "the DPoP proof key does not match the access token's cnf.jkt";
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: await presentation(other, token) }),
      'invalid_token',
      otherKey,
      dpopError('invalid_token', otherKey),
    );
    const ath = 'the DPoP proof ath does not match the access token';
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: await presentation(key, undefined) }),
      'invalid_dpop_proof',
      ath,
      dpopError('invalid_dpop_proof', ath),
    );
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: await presentation(key, await issued(key)) }),
      'invalid_dpop_proof',
      ath,
      dpopError('invalid_dpop_proof', ath),
    );
    const htu = 'the DPoP proof htu does not match the request URI';
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: await presentation(key, token, { htu: 'https://api.example.com/other' }) }),
      'invalid_dpop_proof',
      htu,
      dpopError('invalid_dpop_proof', htu),
    );
    const htm = 'the DPoP proof htm does not match the request method';
    await refusal(
      t,
      verifier,
      verifier.verify(token, { dpop: await presentation(key, token, { htm: 'POST' }) }),
      'invalid_dpop_proof',
      htm,
      dpopError('invalid_dpop_proof', htm),
    );
  });

  t.test('a bearer token stays Bearer: refused with the DPoP scheme', async (t) => {
    const bearer = await issued();
    t.equal((await verifier.verify(bearer)).cnf, undefined);
    await refusal(
      t,
      verifier,
      verifier.verify(bearer, { dpop: await presentation(key, bearer) }),
      'invalid_token',
      notBound,
      switchToBearer,
    );
    await refusal(
      t,
      verifier,
      verifier.verify(bearer, { dpop: { proof: undefined, method: 'GET', url: API } }),
      'invalid_token',
      notBound,
      switchToBearer,
    );
  });

  t.test('challenges: both schemes with the dpop option, Bearer alone without it', async (t) => {
    t.equal(
      verifier.challenge({ requiredScopes: ['read'] }),
      `Bearer realm="${ISSUER}", scope="read", DPoP realm="${ISSUER}", scope="read", algs="${ALGS}"`,
    );
    t.equal(make().challenge(), `Bearer realm="${ISSUER}"`);
    t.equal(make({ dpop: { algorithms: ['ES256'] } }).challenge(), `Bearer realm="${ISSUER}", DPoP realm="${ISSUER}", algs="ES256"`);
    const plain = make();
    await refusal(t, plain, plain.verify(token), 'invalid_token', asBearer, switchToDpop());
    const es256 = make({ dpop: { algorithms: ['ES256'] } });
    await refusal(t, es256, es256.verify(token), 'invalid_token', asBearer, switchToDpop('ES256'));
  });

  t.test('a replay cache that cannot record the proof: verify rejects, requireScope answers 503, not 500', async (t) => {
    const full = make({ dpop: { replayCache: memoryReplayCache({ maxEntries: 1, clock: () => clock.now }) } });
    const down = make({
      dpop: {
        replayCache: {
          rememberProof: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
        },
      },
    });
    const api = Fastify();
    api.get('/full/1', { preHandler: requireScope(full, 'read') }, async () => ({ ok: true }));
    api.get('/down/1', { preHandler: requireScope(down, 'read') }, async () => ({ ok: true }));
    t.teardown(() => api.close());
    const get = async (path: string) =>
      api.inject({
        url: path,
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await dpopProof(key, { htm: 'GET', htu: `http://localhost${path}`, iat: now(), accessToken: token }),
        },
      });
    const unavailable = {
      error: 'temporarily_unavailable',
      error_description: 'the DPoP proof cannot be checked for replay now; retry later',
    };

    t.equal((await get('/full/1')).statusCode, 200, 'the first proof fills the cache');
    for (const path of ['/full/1', '/down/1']) {
      const res = await get(path);
      t.equal(res.statusCode, 503, path);
      t.equal(res.headers['retry-after'], '1');
      t.equal(res.headers['cache-control'], 'no-store');
      t.same(res.json(), unavailable);
    }
    const err = await down.verify(token, { dpop: await presentation(key, token) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, ReplayCacheUnavailableError);
    t.match((err as Error).cause, { message: 'connect ECONNREFUSED 127.0.0.1:6379' });
  });

  t.test('requireScope accepts both schemes and answers in the scheme used', async (t) => {
    const api = Fastify();
    api.get('/things/1', { preHandler: requireScope(verifier, 'read') }, async (request) => ({ jkt: request.accessToken?.cnf?.jkt }));
    t.teardown(() => api.close());
    const htu = 'http://localhost/things/1';
    const get = (headers: Record<string, string>) => api.inject({ url: '/things/1?x=1', headers });
    const proofFor = async (k: DpopKey, accessToken: string) => dpopProof(k, { htm: 'GET', htu, iat: now(), accessToken });

    const ok = await get({ authorization: `DPoP ${token}`, dpop: await proofFor(key, token) });
    t.equal(ok.statusCode, 200);
    t.same(ok.json(), { jkt: key.jkt });
    t.equal((await get({ authorization: `dpop ${token}`, dpop: await proofFor(key, token) })).statusCode, 200, 'case-insensitive scheme');
    t.equal((await get({ authorization: `Bearer ${await issued()}` })).statusCode, 200, 'Bearer still works');

    const bound = await get({ authorization: `Bearer ${token}` });
    t.equal(bound.statusCode, 401);
    t.same(bound.json(), { error: 'invalid_token', error_description: asBearer });
    t.equal(bound.headers['www-authenticate'], switchToDpop(), 'a bound token as Bearer: both challenges, DPoP with its algs');
    const unbound = await get({ authorization: `DPoP ${await issued()}` });
    t.equal(unbound.statusCode, 401);
    t.same(unbound.json(), { error: 'invalid_token', error_description: notBound });
    t.equal(unbound.headers['www-authenticate'], switchToBearer, 'an unbound token as DPoP, without a proof: both challenges');
    const noProof = await get({ authorization: `DPoP ${token}` });
    t.equal(noProof.statusCode, 401);
    t.equal(
      noProof.headers['www-authenticate'],
      dpopError('invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme'),
      'a bound token as DPoP without its proof: the DPoP challenge alone',
    );
    const stolen = await get({ authorization: `DPoP ${token}`, dpop: await proofFor(other, token) });
    t.equal(stolen.statusCode, 401);
    t.same(stolen.json(), { error: 'invalid_token', error_description: "the DPoP proof key does not match the access token's cnf.jkt" });
    t.equal(stolen.headers['www-authenticate'], dpopError('invalid_token', "the DPoP proof key does not match the access token's cnf.jkt"));
    const none = await get({});
    t.equal(
      none.headers['www-authenticate'],
      `Bearer realm="${ISSUER}", scope="read", DPoP realm="${ISSUER}", scope="read", algs="${ALGS}"`,
    );
  });
});

t.test('replay caches: memory (bounded) and Redis through any SET NX PX client', async (t) => {
  let now = 1_000_000;
  const memory = memoryReplayCache({ maxEntries: 2, clock: () => now });
  t.equal(await memory.rememberProof('k', 'a', 1), true);
  t.equal(await memory.rememberProof('k', 'a', 1), false);
  t.equal(await memory.rememberProof('k', 'b', 1), true);
  await t.rejects(memory.rememberProof('k', 'c', 1), ReplayCacheUnavailableError, 'full of live proofs: refused, never unbounded');
  now += 1001;
  t.equal(await memory.rememberProof('k', 'c', 1), true, 'expired proofs make room');
  t.equal(await memory.rememberProof('k', 'a', 1), true, 'and are forgotten');

  const calls: unknown[][] = [];
  const keys = new Set<string>();
  const fake = {
    async set(key: string, value: string, px: 'PX', ms: number, nx: 'NX') {
      calls.push([key, value, px, ms, nx]);
      if (keys.has(key)) return null;
      keys.add(key);
      return 'OK';
    },
  };
  const redis = redisReplayCache(fake, { keyPrefix: 'rs:' });
  t.equal(await redis.rememberProof('JKT', 'jti-1', 121), true);
  t.equal(await redis.rememberProof('JKT', 'jti-1', 121), false);
  t.match(calls[0], [/^rs:\{JKT\}:[A-Za-z0-9_-]{43}$/, '1', 'PX', 121_000, 'NX']);
});
