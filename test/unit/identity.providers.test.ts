import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ProviderRegistry, ProvidersFileError } from '../../src/identity/providers.js';
import { tempDir } from '../helpers/keys.js';

const CORP = {
  id: 'corp',
  type: 'oidc',
  name: 'Corporate SSO',
  issuer: 'https://login.example.com',
  client_id: 'our-client',
  client_secret: 'our-secret',
  allowed_email_domains: ['example.com'],
  required_claims: { groups: 'mcp-users' },
};
const GITHUB = {
  id: 'github',
  type: 'github',
  name: 'GitHub',
  client_id: 'gh-client',
  client_secret: 'gh-secret',
  allowed_organizations: ['acme'],
};

async function providersFile(t: Test, body: unknown, mode = 0o600): Promise<string> {
  const file = join(await tempDir(t), 'providers.json');
  await writeFile(file, JSON.stringify(body));
  await chmod(file, mode);
  return file;
}

t.test('ProviderRegistry', async (t) => {
  t.test('the example of the issue loads, with defaults', async (t) => {
    const registry = ProviderRegistry.fromEntries([CORP, GITHUB]);
    t.same(registry.get('corp'), {
      ...CORP,
      scope: 'openid email profile',
      keep_tokens: false,
      end_session: false,
      allow_private_addresses: false,
      id_jag: false,
    });
    t.same(registry.get('github'), {
      ...GITHUB,
      base_url: 'https://github.com',
      api_url: 'https://api.github.com',
      keep_tokens: false,
      end_session: false,
      allow_private_addresses: false,
    });
    t.same(
      registry.all().map((p) => p.id),
      ['corp', 'github'],
      "the file's order (the login page's)",
    );
    t.ok(Object.isFrozen(registry.get('corp')));
  });

  t.test("an issuer is kept exactly (Auth0's ends in a slash); GitHub's URLs lose trailing slashes", async (t) => {
    const registry = ProviderRegistry.fromEntries([
      { ...CORP, issuer: 'https://tenant.eu.auth0.com/' },
      { ...GITHUB, base_url: 'https://github.acme.com/', api_url: 'https://github.acme.com/api/v3/' },
    ]);
    const corp = registry.get('corp');
    t.equal(corp?.type === 'oidc' && corp.issuer, 'https://tenant.eu.auth0.com/');
    const github = registry.get('github');
    t.same(github?.type === 'github' && [github.base_url, github.api_url], ['https://github.acme.com', 'https://github.acme.com/api/v3']);
  });

  t.test('one line per problem, naming the provider and the field', async (t) => {
    const error = t.throws(() =>
      ProviderRegistry.fromEntries(
        [
          { ...CORP, id: 'Corp SSO' },
          { ...CORP, id: 'no-openid', scope: 'email profile' },
          { ...CORP, id: 'bad-issuer', issuer: 'https://login.example.com/?tenant=1' },
          { ...CORP, id: 'unknown-field', audience: 'x' },
          { ...GITHUB, id: 'bad-org', allowed_organizations: ['not an org'] },
          { ...CORP, id: 'domains', allowed_email_domains: ['@example.com'] },
          { id: 'saml', type: 'saml', name: 'SAML', client_id: 'x', client_secret: 'y' },
          { ...CORP, id: 'no-secret', client_secret: '' },
          CORP,
          CORP,
        ],
        'providers.json',
      ),
    ) as ProvidersFileError;
    t.type(error, ProvidersFileError);
    t.same(error.message.split('\n'), [
      'providers.json: provider "Corp SSO": id: must be lowercase letters, digits and -',
      'providers.json: provider "no-openid": scope: must be space-separated scope tokens including openid',
      'providers.json: provider "bad-issuer": issuer: must have no query or fragment',
      'providers.json: provider "unknown-field": entry: Unrecognized key: "audience"',
      'providers.json: provider "bad-org": allowed_organizations.0: must be a GitHub organization login',
      'providers.json: provider "domains": allowed_email_domains.0: must be a domain name',
      'providers.json: provider "saml": type: type must be "oidc" or "github"',
      'providers.json: provider "no-secret": client_secret: Too small: expected string to have >=1 characters',
      'providers.json: provider "corp": id: registered twice',
    ]);
  });

  t.test("authorization_params: the operator's additions, never what the server sets itself", async (t) => {
    const registry = ProviderRegistry.fromEntries([{ ...CORP, authorization_params: { access_type: 'offline', hd: 'example.com' } }]);
    t.same(registry.get('corp')?.authorization_params, { access_type: 'offline', hd: 'example.com' });
    for (const own of ['redirect_uri', 'scope', 'state', 'max_age', 'client_id', 'code_challenge_method']) {
      t.throws(
        () => ProviderRegistry.fromEntries([{ ...CORP, authorization_params: { [own]: 'x' } }], 'p.json'),
        /p\.json: provider "corp": authorization_params: must not set client_id, redirect_uri, .*: the server sets them/,
        own,
      );
    }
    t.throws(
      () => ProviderRegistry.fromEntries([{ ...CORP, authorization_params: { 'a b': 'x' } }]),
      /authorization_params: parameter names are 1-64 letters, digits, _ . or -/,
    );
  });

  t.test('http:// only with IDENTITY_PROVIDERS_ALLOW_INSECURE', async (t) => {
    const insecure = [
      { ...CORP, issuer: 'http://127.0.0.1:4000' },
      { ...GITHUB, base_url: 'http://127.0.0.1:4100', api_url: 'http://127.0.0.1:4100/api' },
    ];
    const error = t.throws(() => ProviderRegistry.fromEntries(insecure, 'p.json')) as Error;
    t.same(error.message.split('\n'), [
      'p.json: provider "corp": issuer: must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)',
      'p.json: provider "github": base_url: must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)',
      'p.json: provider "github": api_url: must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)',
    ]);
    t.equal(ProviderRegistry.fromEntries(insecure, 'p.json', { allowHttp: true }).size, 2);
    t.throws(() => ProviderRegistry.fromEntries([{ ...CORP, issuer: 'ftp://login.example.com' }]), /issuer: must be an https URL/);
  });

  t.test('load: the file holds client secrets, so one group or others may read is refused', async (t) => {
    const file = await providersFile(t, { providers: [CORP] }, 0o640);
    await t.rejects(ProviderRegistry.load(file), {
      name: 'ProvidersFileError',
      message: `${file}: readable by group or others (mode 0640), and it holds client secrets: fix it with "chmod 600 ${file}"`,
    });
    await chmod(file, 0o604);
    await t.rejects(ProviderRegistry.load(file), /mode 0604/);
    await chmod(file, 0o600);
    t.equal((await ProviderRegistry.load(file)).size, 1);
    await chmod(file, 0o400);
    t.equal((await ProviderRegistry.load(file)).size, 1, 'read-only for its owner is fine');
  });

  t.test('load: a missing file, bad JSON and a wrong shape are named', async (t) => {
    const dir = await tempDir(t);
    await t.rejects(ProviderRegistry.load(join(dir, 'none.json')), /none\.json.*no such file/);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"providers": [', { mode: 0o600 });
    await t.rejects(ProviderRegistry.load(bad), /bad\.json/);
    const shape = await providersFile(t, { clients: [] });
    await t.rejects(ProviderRegistry.load(shape), /providers/);
  });

  t.test('a reload replaces the entries in one step', async (t) => {
    const registry = ProviderRegistry.fromEntries([CORP]);
    registry.replace(ProviderRegistry.fromEntries([GITHUB]));
    t.same(
      registry.all().map((p) => p.id),
      ['github'],
    );
    t.equal(registry.get('corp'), undefined);
  });
});
