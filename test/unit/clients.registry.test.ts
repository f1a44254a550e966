import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { anyClientAllows } from '../../src/clients/origins.js';
import { ClientRegistry, ClientsFileError } from '../../src/clients/registry.js';
import { hashClientSecret, storedSecretDigest, verifyClientSecret } from '../../src/clients/secret.js';
import { clientKey, jwksOf } from '../helpers/client-keys.js';
import { tempDir } from '../helpers/keys.js';

const HASH = hashClientSecret('s3cret');

t.test('client secrets', async (t) => {
  t.match(HASH, /^sha256:[A-Za-z0-9_-]{43}$/);
  const digest = storedSecretDigest(HASH);
  t.ok(verifyClientSecret('s3cret', digest));
  t.notOk(verifyClientSecret('s3cret ', digest));
  t.notOk(verifyClientSecret('s3cret', undefined), 'no stored digest never verifies');
  t.equal(storedSecretDigest('sha256:short'), undefined);
});

t.test('ClientRegistry', async (t) => {
  t.test('applies RFC 7591 defaults', async (t) => {
    const registry = ClientRegistry.fromMetadata([
      { client_id: 'web', client_secret_hash: HASH, redirect_uris: ['https://app.example.com/cb'] },
      { client_id: 'svc', client_secret_hash: HASH, grant_types: ['client_credentials'], scope: 'read write' },
    ]);
    const web = registry.get('web');
    t.same([...(web?.grantTypes ?? [])], ['authorization_code']);
    t.same([...(web?.responseTypes ?? [])], ['code']);
    t.equal(web?.authMethod, 'client_secret_basic');
    t.same(web?.scope, []);
    t.same([...(registry.get('svc')?.responseTypes ?? [])], []);
    t.same(registry.get('svc')?.scope, ['read', 'write']);
    t.equal(web?.introspectAllTokens, false, 'a client introspects only its own tokens by default');
    t.equal(registry.get('nobody'), undefined);
    const rs = ClientRegistry.fromMetadata([
      { client_id: 'rs', client_secret_hash: HASH, grant_types: ['client_credentials'], introspect_all_tokens: true },
    ]);
    t.equal(rs.get('rs')?.introspectAllTokens, true);
  });

  t.test('skip_consent and post_logout_redirect_uris: first-party clients and where sign-out may return', async (t) => {
    const registry = ClientRegistry.fromMetadata([
      {
        client_id: 'portal',
        client_secret_hash: HASH,
        redirect_uris: ['https://portal.example.com/cb'],
        skip_consent: true,
        post_logout_redirect_uris: ['https://portal.example.com/bye', 'https://portal.example.com/bye?x=1'],
      },
      { client_id: 'web', client_secret_hash: HASH, redirect_uris: ['https://app.example.com/cb'] },
    ]);
    t.equal(registry.get('portal')?.skipConsent, true);
    t.same(registry.get('portal')?.postLogoutRedirectUris, ['https://portal.example.com/bye', 'https://portal.example.com/bye?x=1']);
    t.equal(registry.get('web')?.skipConsent, undefined, 'consent is asked by default');
    t.equal(registry.get('web')?.postLogoutRedirectUris, undefined, 'no post-logout redirect by default');
    for (const [entry, message] of [
      [{ skip_consent: 'yes' }, 'skip_consent: Invalid input: expected boolean, received string'],
      [{ post_logout_redirect_uris: ['https://x.example/bye#f'] }, 'post_logout_redirect_uris.0: must not have a fragment'],
      [{ post_logout_redirect_uris: ['/bye'] }, 'post_logout_redirect_uris.0: must be an absolute URI'],
    ] as const) {
      t.throws(
        () =>
          ClientRegistry.fromMetadata([{ client_id: 'k', client_secret_hash: HASH, redirect_uris: ['https://k.example/cb'], ...entry }]),
        new ClientsFileError(`clients: client "k": ${message}`),
      );
    }
  });

  t.test('OpenID Connect metadata: the ID token algorithm, default_max_age, require_auth_time', async (t) => {
    const web = { client_id: 'rp', client_secret_hash: HASH, redirect_uris: ['https://rp.example.com/cb'] };
    const registry = ClientRegistry.fromMetadata([
      { ...web, id_token_signed_response_alg: 'ES256', default_max_age: 3600, require_auth_time: true },
      { ...web, client_id: 'plain', require_auth_time: false },
      { ...web, client_id: 'fresh', id_token_signed_response_alg: 'PS256', default_max_age: 0 },
    ]);
    const fields = (id: string) => {
      const c = registry.get(id);
      return [c?.idTokenSignedResponseAlg, c?.defaultMaxAge, c?.requireAuthTime];
    };
    t.same(fields('rp'), ['ES256', 3600, true]);
    t.same(fields('plain'), [undefined, undefined, undefined], 'undefined: RS256, no default max_age, auth_time only when asked');
    t.same(fields('fresh'), ['PS256', 0, undefined], 'default_max_age 0: a new sign-in every time');
    const offered = 'one of ES256, EdDSA, RS256, PS256';
    for (const [entry, message] of [
      [
        { id_token_signed_response_alg: 'none' },
        `id_token_signed_response_alg: 'none' is refused: ID tokens are always signed, with ${offered}`,
      ],
      [
        { id_token_signed_response_alg: 'HS256' },
        `id_token_signed_response_alg: HS256 (HMAC) is refused: ID tokens are signed with the server's asymmetric keys, ${offered}`,
      ],
      [{ id_token_signed_response_alg: 'ES512' }, `id_token_signed_response_alg: must be ${offered}`],
      [{ id_token_signed_response_alg: 'es256' }, `id_token_signed_response_alg: must be ${offered}`],
      [{ default_max_age: -1 }, 'default_max_age: must be a whole number of seconds, 0 or more'],
      [{ default_max_age: 1.5 }, 'default_max_age: must be a whole number of seconds, 0 or more'],
      [{ default_max_age: '3600' }, 'default_max_age: Invalid input: expected number, received string'],
      [{ require_auth_time: 'yes' }, 'require_auth_time: Invalid input: expected boolean, received string'],
    ] as const) {
      t.throws(() => ClientRegistry.fromMetadata([{ ...web, ...entry }]), new ClientsFileError(`clients: client "rp": ${message}`));
    }
  });

  t.test('private_key_jwt: the public keys inline (jwks) or at a jwks_uri, an optional signing algorithm, no secret', async (t) => {
    const [es, rsa] = await Promise.all([clientKey('ES256', 'es'), clientKey('RS256', 'rsa')]);
    const service = { client_id: 'svc', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' };
    const registry = ClientRegistry.fromMetadata([
      { ...service, jwks: jwksOf(es, rsa) },
      { ...service, client_id: 'remote', jwks_uri: 'https://svc.example.com/jwks.json', token_endpoint_auth_signing_alg: 'PS256' },
      { ...service, client_id: 'local', jwks_uri: 'http://localhost:8080/jwks.json' },
    ]);
    const svc = registry.get('svc');
    t.same(
      [svc?.authMethod, svc?.keys, svc?.assertionSigningAlg, svc?.secretDigest],
      ['private_key_jwt', { jwks: jwksOf(es, rsa) }, undefined, undefined],
    );
    const remote = registry.get('remote');
    t.same([remote?.keys, remote?.assertionSigningAlg], [{ jwksUri: 'https://svc.example.com/jwks.json' }, 'PS256']);
    t.same(registry.get('local')?.keys, { jwksUri: 'http://localhost:8080/jwks.json' }, 'http on this computer, for development');
    t.equal(
      ClientRegistry.fromMetadata([
        { ...service, client_id: 'other', client_secret_hash: HASH, token_endpoint_auth_method: 'client_secret_basic' },
      ]).get('other')?.keys,
      undefined,
    );
    for (const [entry, message] of [
      [{}, "jwks: private_key_jwt needs the client's public keys: either jwks or jwks_uri, not both"],
      [
        { jwks: jwksOf(es), jwks_uri: 'https://svc.example.com/jwks.json' },
        "jwks: private_key_jwt needs the client's public keys: either jwks or jwks_uri, not both",
      ],
      [
        { jwks: jwksOf(es), client_secret_hash: HASH },
        'client_secret_hash: a private_key_jwt client authenticates with its keys: it has no secret',
      ],
      [
        { jwks: { keys: [es.privateJwk] } },
        'jwks: keys[0]: only public keys: private or symmetric key material (d, k, ...) must not be registered',
      ],
      [
        { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
        'jwks: keys[0]: only public keys: private or symmetric key material (d, k, ...) must not be registered',
      ],
      [{ jwks: { keys: [{ ...es.publicJwk, y: undefined }] } }, 'jwks: keys[0]: kty EC needs y'],
      [{ jwks: { keys: [{ kty: 'AKP', pub: 'x' }] } }, 'jwks: keys[0]: kty must be RSA, EC or OKP'],
      [{ jwks: { keys: [] } }, 'jwks: must be a JWK Set with at least one key'],
      [{ jwks: [es.publicJwk] }, 'jwks: must be a JWK Set (an object with a keys array)'],
      [{ jwks: { keys: Array.from({ length: 11 }, () => es.publicJwk) } }, 'jwks: at most 10 keys'],
      [{ jwks: { keys: [{ ...es.publicJwk, kid: 7 }] } }, 'jwks: keys[0]: kid must be a string'],
      [
        { jwks_uri: 'http://svc.example.com/jwks.json' },
        'jwks_uri: must be an absolute https URL (http only on localhost, for development), without fragment',
      ],
      [
        { jwks_uri: 'https://svc.example.com/jwks.json#k' },
        'jwks_uri: must be an absolute https URL (http only on localhost, for development), without fragment',
      ],
      [
        { jwks: jwksOf(es), token_endpoint_auth_signing_alg: 'HS256' },
        'token_endpoint_auth_signing_alg: Invalid option: expected one of "ES256"|"EdDSA"|"Ed25519"|"RS256"|"PS256"',
      ],
    ] as const) {
      t.throws(
        () => ClientRegistry.fromMetadata([{ ...service, ...entry }]),
        new ClientsFileError(`clients: client "svc": ${message}`),
        message,
      );
    }
    t.ok(
      ClientRegistry.fromMetadata([{ ...service, jwks: { keys: [{ ...es.publicJwk, kid: undefined }] } }]).get('svc'),
      'a key without kid',
    );
    for (const field of [
      { jwks: jwksOf(es) },
      { jwks_uri: 'https://svc.example.com/jwks.json' },
      { token_endpoint_auth_signing_alg: 'ES256' },
    ]) {
      const name = Object.keys(field)[0] as string;
      t.throws(
        () =>
          ClientRegistry.fromMetadata([
            { ...service, token_endpoint_auth_method: 'client_secret_basic', client_secret_hash: HASH, ...field },
          ]),
        new ClientsFileError(`clients: client "svc": ${name}: only with token_endpoint_auth_method "private_key_jwt"`),
      );
    }
  });

  t.test('a bad entry is refused naming the client and the field', async (t) => {
    const cases: [unknown, string][] = [
      [
        { client_id: 'a', grant_types: ['client_credentials'] },
        'clients: client "a": client_secret_hash: required with token_endpoint_auth_method "client_secret_basic"',
      ],
      [
        { client_id: 'b', client_secret_hash: 'plain', grant_types: ['client_credentials'] },
        'clients: client "b": client_secret_hash: must be the output of "oauth2-token-service secret hash"',
      ],
      [
        { client_id: 'c', client_secret_hash: HASH, grant_types: ['magic'] },
        'clients: client "c": grant_types.0: Invalid option: expected one of "authorization_code"|"implicit"|"password"|"client_credentials"|"refresh_token"',
      ],
      [
        { client_id: 'd', token_endpoint_auth_method: 'none', grant_types: ['client_credentials'] },
        'clients: client "d": grant_types: client_credentials needs a confidential client',
      ],
      [{ client_id: 'e', client_secret_hash: HASH }, 'clients: client "e": redirect_uris: required for authorization_code and implicit'],
      [
        { client_id: 'f', client_secret_hash: HASH, redirect_uris: ['https://x.example/cb#frag'] },
        'clients: client "f": redirect_uris.0: must not have a fragment',
      ],
      [
        { client_id: 'g', client_secret_hash: HASH, grant_types: ['client_credentials'], scope: 'a  b' },
        'clients: client "g": scope: must be space-separated scope tokens (RFC 6749 §3.3)',
      ],
      [
        { client_id: 'h', client_secret_hash: HASH, grant_types: ['client_credentials'], secret: 'x' },
        'clients: client "h": entry: Unrecognized key: "secret"',
      ],
      [{ client_name: 'no id' }, 'clients: client #1: client_id: Invalid input: expected string, received undefined'],
      [
        { client_id: 'i', redirect_uris: ['https://spa.example/cb'], token_endpoint_auth_method: 'none', introspect_all_tokens: true },
        'clients: client "i": introspect_all_tokens: a public client cannot introspect; only a confidential client may hold this right',
      ],
      [
        { client_id: 'j', client_secret_hash: HASH, grant_types: ['client_credentials'], introspect_all_tokens: 'yes' },
        'clients: client "j": introspect_all_tokens: Invalid input: expected boolean, received string',
      ],
    ];
    for (const [entry, message] of cases) t.throws(() => ClientRegistry.fromMetadata([entry]), new ClientsFileError(message));
    t.throws(
      () =>
        ClientRegistry.fromMetadata([
          { client_id: 'x', client_secret_hash: HASH, grant_types: ['client_credentials'] },
          { client_id: 'x', client_secret_hash: HASH, grant_types: ['client_credentials'] },
        ]),
      { message: 'clients: client "x": client_id: registered twice' },
    );
  });

  t.test('token exchange: the grant with a policy, a confidential client, and nothing to exchange for is refused', async (t) => {
    const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const policy = {
      subject_audiences: ['https://mcp.example.com/mcp'],
      target_resources: ['https://api.example.com/'],
      upstream_providers: ['github'],
    };
    const client = ClientRegistry.fromMetadata([
      { client_id: 'mcp-server', client_secret_hash: HASH, grant_types: [TE], token_exchange: policy },
    ]).get('mcp-server');
    t.same(client?.tokenExchange, {
      subjectAudiences: ['https://mcp.example.com/mcp'],
      targetResources: ['https://api.example.com/'],
      upstreamProviders: ['github'],
    });
    t.same([...(client?.grantTypes ?? [])], [TE]);
    const problems = (entries: unknown[]) => {
      try {
        ClientRegistry.fromMetadata(entries, 'c.json');
        return [];
      } catch (err) {
        return (err as Error).message.split('\n');
      }
    };
    t.same(problems([{ client_id: 'a', client_secret_hash: HASH, grant_types: [TE] }]), [
      `c.json: client "a": token_exchange: required with the grant type ${TE}: what the client may exchange`,
    ]);
    t.same(problems([{ client_id: 'b', client_secret_hash: HASH, grant_types: ['client_credentials'], token_exchange: policy }]), [
      `c.json: client "b": token_exchange: only with the grant type ${TE} in grant_types`,
    ]);
    t.same(problems([{ client_id: 'c', token_endpoint_auth_method: 'none', grant_types: [TE], token_exchange: policy }]), [
      'c.json: client "c": grant_types: token exchange needs a confidential client',
    ]);
    t.same(
      problems([
        {
          client_id: 'd',
          client_secret_hash: HASH,
          grant_types: [TE],
          token_exchange: { subject_audiences: ['https://mcp.example.com/mcp'] },
        },
      ]),
      ['c.json: client "d": token_exchange: name target_resources or upstream_providers: something to exchange for'],
    );
    t.same(
      problems([{ client_id: 'e', client_secret_hash: HASH, grant_types: [TE], token_exchange: { ...policy, subject_audiences: [] } }]),
      ['c.json: client "e": token_exchange.subject_audiences: Too small: expected array to have >=1 items'],
    );
    t.same(problems([{ client_id: 'f', client_secret_hash: HASH, grant_types: [TE], token_exchange: { ...policy, extra: true } }]), [
      'c.json: client "f": token_exchange: Unrecognized key: "extra"',
    ]);
  });

  t.test("a client_credentials client's id (its tokens' sub) may not begin with fed_", async (t) => {
    t.throws(() => ClientRegistry.fromMetadata([{ client_id: 'fed_x', client_secret_hash: HASH, grant_types: ['client_credentials'] }]), {
      message:
        'clients: client "fed_x": client_id: a client_credentials client\'s id is its tokens\' sub, and must not begin with "fed_" (reserved for users who sign in through an identity provider)',
    });
    t.equal(
      ClientRegistry.fromMetadata([
        { client_id: 'fed_web', redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'none' },
      ]).all().length,
      1,
      'a client that is never a sub may',
    );
  });

  t.test('no client id begins with workload: (the client_id of workloads’ tokens)', async (t) => {
    for (const grant_types of [['client_credentials'], ['authorization_code']])
      t.throws(
        () =>
          ClientRegistry.fromMetadata([
            { client_id: 'workload:ci', client_secret_hash: HASH, grant_types, redirect_uris: ['https://app.example.com/cb'] },
          ]),
        { message: 'clients: client "workload:ci": client_id: must not begin with "workload:" (reserved for the tokens of workloads)' },
      );
  });

  t.test('allowed_origins: origins exactly as browsers send them', async (t) => {
    const withOrigins = (allowed_origins: unknown) => () =>
      ClientRegistry.fromMetadata([{ client_id: 'o', client_secret_hash: HASH, grant_types: ['client_credentials'], allowed_origins }]);
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'https://app.example.com:443',
      'HTTPS://app.example.com',
      'https://APP.example.com',
      'https://user@app.example.com',
      'app.example.com',
      'ftp://app.example.com',
      '*',
      'null',
    ]) {
      t.throws(
        withOrigins([bad]),
        new ClientsFileError(
          'clients: client "o": allowed_origins.0: must be an origin: http(s)://host[:port] with no path, as browsers send it',
        ),
        bad,
      );
    }
    const good = ['https://app.example.com', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'https://xn--bcher-kva.example'];
    t.same([...(withOrigins(good)().get('o')?.corsOrigins ?? [])], good);
  });

  t.test('the origins a client allows: its allowed_origins, and its redirect URIs if it is public', async (t) => {
    const registry = ClientRegistry.fromMetadata([
      {
        client_id: 'spa',
        token_endpoint_auth_method: 'none',
        redirect_uris: ['https://spa.example.com/cb', 'https://spa.example.com/other', 'http://127.0.0.1:5173/cb', 'com.example.app:/cb'],
        allowed_origins: ['https://cdn.example.com'],
      },
      { client_id: 'web', client_secret_hash: HASH, redirect_uris: ['https://app.example.com/cb'] },
      {
        client_id: 'bff',
        client_secret_hash: HASH,
        redirect_uris: ['https://bff.example.com/cb'],
        allowed_origins: ['https://bff.example.com'],
      },
    ]);
    t.same([...(registry.get('spa')?.corsOrigins ?? [])], ['https://spa.example.com', 'http://127.0.0.1:5173', 'https://cdn.example.com']);
    t.same([...(registry.get('web')?.corsOrigins ?? [])], [], "a confidential client's redirect URIs allow nothing");
    t.same([...(registry.get('bff')?.corsOrigins ?? [])], ['https://bff.example.com']);
    t.ok(anyClientAllows(registry, 'https://cdn.example.com'));
    t.ok(anyClientAllows(registry, 'https://bff.example.com'));
    t.notOk(anyClientAllows(registry, 'https://app.example.com'));
    t.notOk(anyClientAllows(registry, 'null'));
    t.notOk(anyClientAllows(new ClientRegistry([]), 'https://spa.example.com'));
  });

  t.test('load() reads CLIENTS_FILE and names the file on errors', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'clients.json');
    await writeFile(
      file,
      JSON.stringify({ clients: [{ client_id: 'svc', client_secret_hash: HASH, grant_types: ['client_credentials'] }] }),
    );
    t.ok((await ClientRegistry.load(file)).get('svc'));
    await writeFile(file, '{"clients": [');
    await t.rejects(ClientRegistry.load(file), { message: new RegExp(`^${file}: not valid JSON`) });
    await writeFile(file, '[]');
    await t.rejects(ClientRegistry.load(file), { message: `${file}: expected {"clients": [...]}` });
    await t.rejects(ClientRegistry.load(join(dir, 'missing.json')), { message: /missing\.json: no such file$/ });
  });
});
