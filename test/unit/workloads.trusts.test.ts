import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { Registries } from '../../src/registries.js';
import { claimsMatch, matchingRule, subjectMatches } from '../../src/workloads/rules.js';
import { signingKeysOf, WorkloadTrustRegistry, WorkloadTrustsFileError } from '../../src/workloads/trusts.js';
import { warnAboutWorkloadTrusts } from '../../src/workloads/start-warnings.js';
import { tempDir } from '../helpers/keys.js';

/** WORKLOAD_TRUSTS_FILE: its schema (one message per problem), the rules, the reload on SIGHUP. */

const EC_KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
const RULE = { sub: 'system:serviceaccount:agents:*', resources: ['https://mcp.example.com'], scope: 'tools:call' };

/** The example of the issue (the keys of the SPIFFE bundle are ours). */
const ISSUE_EXAMPLE = [
  {
    id: 'ci',
    issuer: 'https://token.actions.githubusercontent.com',
    audience: 'https://auth.example.com',
    rules: [
      {
        claims: { repository: 'acme/deploy', ref: 'refs/heads/main' },
        resources: ['https://mcp.example.com'],
        scope: 'deploy:read deploy:write',
      },
    ],
  },
  { id: 'cluster', issuer: 'https://kubernetes.default.svc', jwks_uri: 'https://k8s.internal/openid/v1/jwks', rules: [RULE] },
  {
    id: 'mesh',
    issuer: 'spiffe://example.org',
    jwks: { keys: [{ ...EC_KEY, use: 'jwt-svid', kid: 'a' }], spiffe_sequence: 3 },
    rules: [{ sub: 'spiffe://example.org/ns/default/sa/*', resources: ['https://mcp.example.com'], scope: 'tools:call' }],
  },
];

const problems = (entries: unknown[], options = {}) => {
  try {
    WorkloadTrustRegistry.fromEntries(entries, 'trusts.json', options);
    return [];
  } catch (err) {
    if (!(err instanceof WorkloadTrustsFileError)) throw err;
    return err.message.split('\n');
  }
};

t.test('the example of the issue loads, with defaults, found by id and by issuer exactly', async (t) => {
  const registry = WorkloadTrustRegistry.fromEntries(ISSUE_EXAMPLE);
  t.equal(registry.size, 3);
  t.same(registry.get('cluster'), { ...ISSUE_EXAMPLE[1], require_jti: false, allow_private_addresses: false });
  t.equal(registry.byIssuer('https://token.actions.githubusercontent.com')?.id, 'ci');
  t.equal(registry.byIssuer('https://token.actions.githubusercontent.com/'), undefined, 'exactly as configured');
  t.equal(registry.byIssuer('spiffe://example.org')?.id, 'mesh');
  t.ok(Object.isFrozen(registry.get('ci')));
});

t.test('one message per problem, naming the file, the trust and the field', async (t) => {
  t.same(
    problems([
      { id: 'Bad_Id', issuer: 'not a uri', rules: [] },
      { id: 'both', issuer: 'spiffe://x', jwks: { keys: [EC_KEY] }, jwks_uri: 'https://x.example/jwks', rules: [RULE] },
      { id: 'no-keys', issuer: 'spiffe://y', rules: [RULE] },
      { id: 'secret', issuer: 'https://z.example', jwks: { keys: [{ ...EC_KEY, d: 'c2VjcmV0' }] }, rules: [RULE] },
      { id: 'x509-only', issuer: 'spiffe://w', jwks: { keys: [{ ...EC_KEY, use: 'x509-svid' }] }, rules: [RULE] },
      {
        id: 'rules',
        issuer: 'https://r.example',
        extra: true,
        rules: [
          { resources: ['https://mcp.example.com'], scope: 'tools:call' },
          { sub: 'a*b*', claims: {}, resources: ['https://mcp.example.com#frag'], scope: 'bad"scope' },
        ],
      },
    ]),
    [
      'trusts.json: trust "Bad_Id": id: must be lowercase letters, digits and -',
      'trusts.json: trust "Bad_Id": issuer: must be an absolute URI without fragment (the JWTs’ iss)',
      'trusts.json: trust "Bad_Id": rules: Too small: expected array to have >=1 items',
      'trusts.json: trust "both": jwks: either jwks or jwks_uri, not both',
      'trusts.json: trust "no-keys": issuer: without jwks or jwks_uri the keys come from the issuer\'s OpenID discovery: it must be an https URL',
      'trusts.json: trust "secret": jwks: keys[0]: only public keys: private or symmetric key material (d, k, ...) must not be registered',
      'trusts.json: trust "x509-only": jwks: has no signing key',
      'trusts.json: trust "rules": rules.0: a rule needs sub or claims: which workloads of the issuer it admits',
      'trusts.json: trust "rules": rules.1.sub: may end with * (any rest) and has no other *',
      'trusts.json: trust "rules": rules.1.claims: must name at least one claim',
      'trusts.json: trust "rules": rules.1.resources.0: must be an absolute URI without fragment (a resource indicator)',
      'trusts.json: trust "rules": rules.1.scope: must be space-separated scope tokens (RFC 6749 §3.3)',
      'trusts.json: trust "rules": entry: Unrecognized key: "extra"',
    ],
  );
});

t.test('an id or an issuer trusted twice, and http:// without WORKLOAD_TRUSTS_ALLOW_INSECURE, are refused', async (t) => {
  const trust = (id: string, issuer: string, extra = {}) => ({ id, issuer, rules: [RULE], ...extra });
  t.same(problems([trust('a', 'https://one.example'), trust('a', 'https://two.example'), trust('b', 'https://one.example')]), [
    'trusts.json: trust "a": id: registered twice',
    'trusts.json: trust "b": issuer: already trusted by trust "a"',
  ]);
  const plain = [trust('k8s', 'http://k8s.local'), trust('keyed', 'spiffe://keyed', { jwks_uri: 'http://keys.local/jwks' })];
  t.same(problems(plain), [
    'trusts.json: trust "k8s": issuer: must be an https URL (http only with WORKLOAD_TRUSTS_ALLOW_INSECURE=true)',
    'trusts.json: trust "keyed": jwks_uri: must be an https URL (http only with WORKLOAD_TRUSTS_ALLOW_INSECURE=true)',
  ]);
  t.same(problems(plain, { allowHttp: true }), []);
  // Inline keys fetch nothing: any issuer URI goes.
  t.same(problems([trust('inline', 'http://anything.local', { jwks: { keys: [EC_KEY] } })]), []);
});

t.test('a SPIFFE bundle: its jwt-svid keys sign, its x509-svid keys do not', async (t) => {
  const bundle = {
    keys: [
      { ...EC_KEY, use: 'jwt-svid', kid: 'j' },
      { ...EC_KEY, use: 'x509-svid' },
      { ...EC_KEY, kid: 'plain' },
    ],
  };
  t.same(signingKeysOf(bundle), {
    keys: [
      { ...EC_KEY, use: 'sig', kid: 'j' },
      { ...EC_KEY, kid: 'plain' },
    ],
  });
});

t.test('rules: sub exactly or by its beginning; every claim named, objects by their members; the first match decides', async (t) => {
  t.ok(subjectMatches('spiffe://example.org/ns/default/sa/*', 'spiffe://example.org/ns/default/sa/x'));
  t.notOk(subjectMatches('spiffe://example.org/ns/default/sa/*', 'spiffe://example.org/ns/other/sa/x'));
  t.ok(subjectMatches('repo:acme/deploy:ref:refs/heads/main', 'repo:acme/deploy:ref:refs/heads/main'));
  t.notOk(subjectMatches('repo:acme/deploy:ref:refs/heads/main', 'repo:acme/deploy:ref:refs/heads/main2'), 'no * : exactly');
  t.ok(subjectMatches(undefined, 'anyone'));
  const k8s = { 'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'x', uid: 'u' } }, run_number: 7, ephemeral: false };
  t.ok(claimsMatch({ 'kubernetes.io': { namespace: 'agents', serviceaccount: { name: 'x' } } }, k8s));
  t.notOk(claimsMatch({ 'kubernetes.io': { namespace: 'other' } }, k8s));
  t.notOk(claimsMatch({ 'kubernetes.io': 'agents' }, k8s), 'a string is not an object');
  t.notOk(claimsMatch({ namespace: { name: 'x' } }, { namespace: 'x' }), 'an object is not a string');
  t.ok(claimsMatch({ run_number: 7, ephemeral: false }, k8s), 'numbers and booleans by value');
  t.notOk(claimsMatch({ run_number: '7' }, k8s), 'never by loose equality');
  t.notOk(claimsMatch({ toString: 'x' }, {}), 'only the claims the JWT has');
  const rules = [
    { claims: { repository: 'acme/deploy' }, resources: ['https://a.example'], scope: 'a' },
    { sub: '*', resources: ['https://b.example'], scope: 'b' },
  ];
  t.equal(matchingRule(rules, 'x', { repository: 'acme/deploy' })?.scope, 'a');
  t.equal(matchingRule(rules, 'x', { repository: 'acme/other' })?.scope, 'b');
  t.equal(matchingRule(rules.slice(0, 1), 'x', {}), undefined);
});

t.test('WORKLOAD_TRUSTS_FILE reloads on SIGHUP on its own: a valid file is taken, a broken one keeps the trusts', async (t) => {
  const file = join(await tempDir(t), 'trusts.json');
  const write = (trusts: unknown[]) => writeFile(file, JSON.stringify({ trusts }));
  await write(ISSUE_EXAMPLE.slice(0, 1));
  const registries = await Registries.open(
    { clients: undefined, users: undefined, workloads: file },
    { sources: { clients: 'CLIENTS_FILE', users: 'USERS_FILE' } },
  );
  const held = registries.workloads;
  t.same(
    held.all().map((trust) => trust.id),
    ['ci'],
  );
  await write(ISSUE_EXAMPLE);
  t.same(await registries.reload(), [{ registry: 'workloads', file, ok: true, count: 3 }]);
  t.equal(held.byIssuer('spiffe://example.org')?.id, 'mesh', 'the same registry serves the new trusts at once');
  await write([{ ...ISSUE_EXAMPLE[0], id: 'Nope' }]);
  t.match(await registries.reload(), [{ registry: 'workloads', ok: false, error: { message: /trust "Nope": id: must be lowercase/ } }]);
  t.equal(held.size, 3, 'a broken file keeps the previous trusts');
  await t.rejects(
    Registries.open(
      { clients: undefined, users: undefined, workloads: join(file, '..', 'missing.json') },
      { sources: { clients: 'C', users: 'U' } },
    ),
    { message: /^WORKLOAD_TRUSTS_FILE: .*missing\.json: no such file$/ },
  );
});

t.test('at start: a warning for WORKLOAD_TRUSTS_ALLOW_INSECURE and for each resource RESOURCES_FILE does not register', async (t) => {
  const warnings: string[] = [];
  const registry = WorkloadTrustRegistry.fromEntries(ISSUE_EXAMPLE);
  const registered = new Set(['https://mcp.example.com']);
  warnAboutWorkloadTrusts(
    { workloadTrusts: { allowInsecure: false } },
    registry,
    { get: (r) => (registered.has(r) ? r : undefined) },
    {
      warn: (message) => warnings.push(message),
    },
  );
  t.same(warnings, []);
  registered.clear();
  warnAboutWorkloadTrusts(
    { workloadTrusts: { allowInsecure: true } },
    registry,
    { get: () => undefined },
    { warn: (m) => warnings.push(m) },
  );
  t.same(warnings, [
    'WORKLOAD_TRUSTS_ALLOW_INSECURE=true: workload issuers and their keys may be fetched over http:// and from loopback or private addresses; for development and tests only',
    'workload trust "ci" names the resource https://mcp.example.com, which RESOURCES_FILE does not register: no token is issued for it',
    'workload trust "cluster" names the resource https://mcp.example.com, which RESOURCES_FILE does not register: no token is issued for it',
    'workload trust "mesh" names the resource https://mcp.example.com, which RESOURCES_FILE does not register: no token is issued for it',
  ]);
});
