import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';

/** `oauth2-token-service providers list`, in-process. */

const PROVIDERS = [
  {
    id: 'corp',
    type: 'oidc',
    name: 'Corporate SSO',
    issuer: 'https://login.example.com',
    client_id: 'our-client',
    client_secret: 'the-corp-secret',
    allowed_email_domains: ['example.com', 'example.org'],
    required_claims: { groups: 'mcp-users' },
    keep_tokens: true,
    end_session: true,
  },
  {
    id: 'github',
    type: 'github',
    name: 'GitHub',
    client_id: 'Iv1.abc',
    client_secret: 'the-github-secret',
    allowed_organizations: ['acme'],
  },
];

t.test('providers list', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'providers.json');
  await writeFile(file, JSON.stringify({ providers: PROVIDERS }), { mode: 0o600 });

  t.test('each provider, what to register there, never a secret', async (t) => {
    const run = await runCommand(['providers', 'list'], {
      env: { IDENTITY_PROVIDERS_FILE: file, ISSUER: 'https://as.example.com/tenant/' },
    });
    t.same([run.code, run.stderr], [0, '']);
    t.equal(
      run.stdout,
      [
        'corp oidc "Corporate SSO" issuer=https://login.example.com client_id=our-client allowed_email_domains=example.com,example.org required_claims=groups keep_tokens end_session',
        '  redirect URI to register: https://as.example.com/tenant/oauth2/upstream/corp/callback',
        '  post-logout redirect URI to register: https://as.example.com/tenant/oauth2/upstream/corp/signed-out',
        'github github GitHub base_url=https://github.com api_url=https://api.github.com client_id=Iv1.abc allowed_organizations=acme',
        '  redirect URI to register: https://as.example.com/tenant/oauth2/upstream/github/callback',
        '',
      ].join('\n'),
    );
    t.notMatch(run.stdout, /secret/);
  });

  t.test('--file and --issuer override; the default issuer follows PORT', async (t) => {
    const run = await runCommand(['providers', 'list', '--file', file, '--issuer', 'https://other.example.com'], { env: {} });
    t.match(run.stdout, 'https://other.example.com/oauth2/upstream/corp/callback');
    const local = await runCommand(['providers', 'list'], { env: { IDENTITY_PROVIDERS_FILE: file, PORT: '8080' } });
    t.match(local.stdout, 'http://localhost:8080/oauth2/upstream/github/callback');
  });

  t.test('a file the server would refuse fails with its message', async (t) => {
    const open = join(dir, 'open.json');
    await writeFile(open, JSON.stringify({ providers: PROVIDERS }));
    await chmod(open, 0o644);
    const run = await runCommand(['providers', 'list', '--file', open]);
    t.same(
      [run.code, run.stdout, run.stderr],
      [1, '', `error: ${open}: readable by group or others (mode 0644), and it holds client secrets: fix it with "chmod 600 ${open}"\n`],
    );
    const insecure = join(dir, 'insecure.json');
    await writeFile(insecure, JSON.stringify({ providers: [{ ...PROVIDERS[0], issuer: 'http://127.0.0.1:4000' }] }), { mode: 0o600 });
    const refused = await runCommand(['providers', 'list', '--file', insecure]);
    t.equal(refused.code, 1);
    t.match(refused.stderr, 'issuer: must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)');
    const allowed = await runCommand(['providers', 'list', '--file', insecure], { env: { IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true' } });
    t.equal(allowed.code, 0);
  });

  t.test('usage errors', async (t) => {
    const run = await runCommand(['providers', 'list']);
    t.equal(run.code, 2);
    t.match(run.stderr, 'name the providers file with --file or IDENTITY_PROVIDERS_FILE');
    t.equal((await runCommand(['providers', 'list', '--file', file, '--issuer', 'not a url'])).code, 2);
  });
});
