import { exportJWK, SignJWT } from 'jose';
import t, { type Test } from 'tap';
import { ClientAssertions } from '../../src/clients/client-assertions.js';
import { ClientKeys } from '../../src/clients/client-keys.js';
import { ClientRegistry, type Client } from '../../src/clients/registry.js';
import type { ClientAuthenticationFailure } from '../../src/events/types.js';
import { ClientAssertionRefused } from '../../src/oauth/client-assertion.js';
import { MemoryStore } from '../../src/store/memory.js';
import { clientAssertion, type ClientKey, clientKey, jwksOf, unsignedAssertion } from '../helpers/client-keys.js';
import { DocumentServer } from '../helpers/document-server.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

/**
 * private_key_jwt: the key, the signature and the single use of an assertion, with inline
 * keys and with a jwks_uri on a local HTTPS server (as `https://client.example:<port>/...`,
 * the injected resolver being the test's DNS).
 */

const ISSUER = 'https://as.example.com';
const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;

interface Setup {
  readonly verifier: ClientAssertions;
  readonly now: () => number;
  readonly advance: (seconds: number) => void;
  readonly fetchFailures: Array<[string, string]>;
}

function setup(t: Test, certificate?: TestCertificate): Setup {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const store = new MemoryStore(clock);
  t.teardown(() => store.close());
  const fetchFailures: Array<[string, string]> = [];
  const keys = new ClientKeys({
    fetch: {
      allowHttp: false,
      allowSpecialUseAddresses: true,
      timeoutMs: 2000,
      maxBytes: 5120,
      ca: certificate?.cert,
      resolve: async (hostname) => (hostname === 'client.example' ? [{ address: '127.0.0.1', family: 4 }] : []),
    },
    ttl: { minSeconds: 60, maxSeconds: 86_400 },
    clock,
    onFetchFailed: (uri, reason) => void fetchFailures.push([uri, reason]),
  });
  return {
    verifier: new ClientAssertions(keys, store, { issuer: ISSUER, tokenEndpoint: TOKEN_ENDPOINT, strictAudience: false, clock }),
    now: () => Math.floor(now / 1000),
    advance: (seconds) => void (now += seconds * 1000),
    fetchFailures,
  };
}

function clientWith(fields: Record<string, unknown>): Client {
  const entry = { client_id: 'svc', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', ...fields };
  return ClientRegistry.fromMetadata([entry]).get('svc') as Client;
}

/** Refused saying `reason`, as the check `failure` (the audit code). */
async function refusal(t: Test, promise: Promise<unknown>, reason: string, failure: ClientAuthenticationFailure): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof ClientAssertionRefused, `refused: ${reason}`);
  t.equal((err as Error | undefined)?.message, reason);
  t.equal((err as ClientAssertionRefused | undefined)?.failure, failure);
}

t.test('inline keys (jwks)', async (t) => {
  const [es, ed, rsa, ps] = await Promise.all([
    clientKey('ES256', 'es'),
    clientKey('EdDSA', 'ed'),
    clientKey('RS256', 'rs'),
    clientKey('PS256', 'ps'),
  ]);

  t.test('an assertion signed with any of the four algorithms by a key of the client is accepted once', async (t) => {
    const { verifier, now } = setup(t);
    const client = clientWith({ jwks: jwksOf(es, ed, rsa, ps) });
    for (const key of [es, ed, rsa, ps]) {
      const assertion = await clientAssertion(key, 'svc', { now: now() });
      await verifier.verify(assertion, client);
      await refusal(t, verifier.verify(assertion, client), 'the jti was already used', 'replayed');
    }
    const sameJti = await clientAssertion(es, 'svc', { now: now(), claims: { jti: 'fixed' } });
    await verifier.verify(sameJti, client);
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'svc', { now: now(), claims: { jti: 'fixed' } }), client),
      'the jti was already used',
      'replayed',
    );
  });

  t.test('without kid: fine when the client has one key for the algorithm, refused when it has more', async (t) => {
    const { verifier, now } = setup(t);
    const other = await clientKey('ES256', 'es2');
    await verifier.verify(
      await clientAssertion(es, 'svc', { now: now(), header: { kid: undefined } }),
      clientWith({ jwks: jwksOf(es, rsa) }),
    );
    await refusal(
      t,
      verifier.verify(
        await clientAssertion(es, 'svc', { now: now(), header: { kid: undefined } }),
        clientWith({ jwks: jwksOf(es, other) }),
      ),
      'the client has 2 keys for ES256: a kid is needed',
      'ambiguous_key',
    );
  });

  t.test('refused: a kid not among the client keys, another key, another client, alg none, HS256 with the public key', async (t) => {
    const { verifier, now } = setup(t);
    const client = clientWith({ jwks: jwksOf(es) });
    const stranger = await clientKey('ES256', 'es');
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'svc', { now: now(), header: { kid: 'nope' } }), client),
      'no key of the client for ES256 with kid nope',
      'unknown_kid',
    );
    await refusal(
      t,
      verifier.verify(await clientAssertion(stranger, 'svc', { now: now() }), client),
      'the signature does not verify with the client key',
      'bad_signature',
    );
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'other', { now: now() }), client),
      'iss is not the client_id',
      'wrong_issuer',
    );
    await refusal(t, verifier.verify(unsignedAssertion('svc', now()), client), 'alg none is not accepted', 'algorithm_not_allowed');
    // The classic confusion: the public key's bytes used as an HMAC secret.
    const hmac = await new SignJWT({ iss: 'svc', sub: 'svc', aud: ISSUER, exp: now() + 60, jti: 'h1' })
      .setProtectedHeader({ alg: 'HS256', kid: 'es' })
      .sign(new TextEncoder().encode(JSON.stringify(await exportJWK(es.privateKey).then(({ d: _d, ...pub }) => pub))));
    await refusal(t, verifier.verify(hmac, client), 'alg HS256 is not accepted', 'algorithm_not_allowed');
    await refusal(t, verifier.verify('not.a.jwt', client), 'not a signed JWT (JWS compact serialization)', 'malformed');
  });

  t.test('Ed25519 (RFC 9864) and EdDSA are one algorithm: a key registered for either verifies both', async (t) => {
    const { verifier, now } = setup(t);
    const key = { ...ed, publicJwk: { ...ed.publicJwk, alg: 'EdDSA' } };
    const client = clientWith({ jwks: jwksOf(key) });
    await verifier.verify(await clientAssertion(key, 'svc', { now: now(), header: { alg: 'Ed25519' } }), client);
    await verifier.verify(await clientAssertion(key, 'svc', { now: now(), header: { alg: 'EdDSA' } }), client);
    const named = clientWith({ jwks: jwksOf({ ...ed, publicJwk: { ...ed.publicJwk, alg: 'Ed25519' } }) });
    await verifier.verify(await clientAssertion(key, 'svc', { now: now(), header: { alg: 'EdDSA' } }), named);
  });

  t.test('token_endpoint_auth_signing_alg: only that algorithm', async (t) => {
    const { verifier, now } = setup(t);
    const client = clientWith({ jwks: jwksOf(es, rsa), token_endpoint_auth_signing_alg: 'RS256' });
    await verifier.verify(await clientAssertion(rsa, 'svc', { now: now() }), client);
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'svc', { now: now() }), client),
      'alg ES256 is not accepted',
      'algorithm_not_allowed',
    );
  });

  t.test('a key of the wrong type for the algorithm is not a candidate (an RSA key named by an ES256 header)', async (t) => {
    const { verifier, now } = setup(t);
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'svc', { now: now(), header: { kid: 'rs' } }), clientWith({ jwks: jwksOf(es, rsa) })),
      'no key of the client for ES256 with kid rs',
      'unknown_kid',
    );
  });

  t.test('a client with a secret, or a public one, cannot authenticate with an assertion', async (t) => {
    const { verifier, now } = setup(t);
    const secretClient = ClientRegistry.fromMetadata([
      { client_id: 'svc', grant_types: ['client_credentials'], client_secret_hash: `sha256:${'A'.repeat(43)}` },
    ]).get('svc') as Client;
    await refusal(
      t,
      verifier.verify(await clientAssertion(es, 'svc', { now: now() }), secretClient),
      'the client authenticates with client_secret_basic, not private_key_jwt',
      'wrong_method',
    );
  });
});

t.test('keys at a jwks_uri', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const [current, next] = await Promise.all([clientKey('ES256', 'current'), clientKey('ES256', 'next')]);

  async function published(t: Test, keys: ClientKey[], headers: Record<string, string> = {}) {
    const server = await DocumentServer.start(t, certificate);
    server.serveJson('/jwks.json', jwksOf(...keys), headers);
    const client = clientWith({ jwks_uri: `https://client.example:${server.port}/jwks.json` });
    return { server, client };
  }

  t.test('fetched once and cached for its max-age, within the bounds', async (t) => {
    const { verifier, now, advance } = setup(t, certificate);
    const { server, client } = await published(t, [current], { 'cache-control': 'max-age=300' });
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
    advance(299);
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
    t.equal(server.requestsFor('/jwks.json'), 1, 'fresh: fetched once');
    advance(1);
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
    t.equal(server.requestsFor('/jwks.json'), 2, 'expired: fetched again');
  });

  t.test('an unknown kid: fetched again at most once per cooldown (60 s), then the rotated key is found', async (t) => {
    const { verifier, now, advance } = setup(t, certificate);
    const { server, client } = await published(t, [current], { 'cache-control': 'max-age=3600' });
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
    advance(59);
    server.serveJson('/jwks.json', jwksOf(current, next), { 'cache-control': 'max-age=3600' });
    for (let i = 0; i < 5; i += 1) {
      await refusal(
        t,
        verifier.verify(await clientAssertion(next, 'svc', { now: now() }), client),
        'no key of the client for ES256 with kid next',
        'unknown_kid',
      );
      await refusal(
        t,
        verifier.verify(await clientAssertion(next, 'svc', { now: now(), header: { kid: `made-up-${i}` } }), client),
        `no key of the client for ES256 with kid made-up-${i}`,
        'unknown_kid',
      );
    }
    t.equal(server.requestsFor('/jwks.json'), 1, 'inside the cooldown: not fetched again, whatever the kid');
    advance(1);
    await verifier.verify(await clientAssertion(next, 'svc', { now: now() }), client);
    t.equal(server.requestsFor('/jwks.json'), 2, 'the cooldown over: fetched once more, and the new key found');
    await refusal(
      t,
      verifier.verify(await clientAssertion(next, 'svc', { now: now(), header: { kid: 'made-up' } }), client),
      'no key of the client for ES256 with kid made-up',
      'unknown_kid',
    );
    t.equal(server.requestsFor('/jwks.json'), 2, 'and the next unknown kid waits for the next window');
  });

  t.test('a jwks_uri that is down, answers no JSON, or publishes a private key: refused, reported once per fetch', async (t) => {
    const { verifier, now, advance, fetchFailures } = setup(t, certificate);
    const { server, client } = await published(t, [current]);
    server.serve('/jwks.json', { status: 503, body: 'down' });
    await refusal(
      t,
      verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client),
      "the client's jwks_uri is unusable: answered HTTP 503, not 200",
      'keys_unavailable',
    );
    await refusal(
      t,
      verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client),
      "the client's jwks_uri is unusable: answered HTTP 503, not 200",
      'keys_unavailable',
    );
    t.equal(server.requestsFor('/jwks.json'), 1, 'a failure is remembered for a few seconds');
    advance(10);
    server.serveJson('/jwks.json', { keys: [current.privateJwk] });
    await refusal(
      t,
      verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client),
      "the client's jwks_uri is unusable: private or symmetric key material is published",
      'keys_unavailable',
    );
    advance(10);
    server.serveJson('/jwks.json', jwksOf(current));
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
    const uri = (client.keys as { jwksUri: string }).jwksUri;
    t.same(fetchFailures, [
      [uri, 'answered HTTP 503, not 200'],
      [uri, 'private or symmetric key material is published'],
    ]);
  });

  t.test('keys of types we do not verify with are left out of a published set', async (t) => {
    const { verifier, now } = setup(t, certificate);
    const { server, client } = await published(t, [current]);
    server.serveJson('/jwks.json', { keys: [{ kty: 'AKP', alg: 'ML-DSA-44', pub: 'x', kid: 'pq' }, current.publicJwk] });
    await verifier.verify(await clientAssertion(current, 'svc', { now: now() }), client);
  });
});
