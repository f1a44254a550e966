import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';

/** `oauth2-token-service clients add` and `list` with the OpenID Connect client metadata, in-process. */

const clients = (args: string[]) => runCommand(['clients', ...args], { env: {} });
const RP = ['--id', 'rp', '--grant', 'authorization_code', '--redirect-uri', 'https://rp.example.com/cb'];

t.test('clients add: --post-logout-redirect-uri, --id-token-alg, --default-max-age, --require-auth-time', async (t) => {
  const file = join(await tempDir(t), 'clients.json');
  const run = await clients([
    ...['add', '--file', file, ...RP],
    ...['--post-logout-redirect-uri', 'https://rp.example.com/bye', '--post-logout-redirect-uri', 'https://rp.example.com/bye?again'],
    ...['--id-token-alg', 'EdDSA', '--default-max-age', '900', '--require-auth-time'],
  ]);
  t.equal(run.code, 0, run.stderr);
  const stored = JSON.parse(await readFile(file, 'utf8')) as { clients: Record<string, unknown>[] };
  t.match(stored.clients[0], {
    post_logout_redirect_uris: ['https://rp.example.com/bye', 'https://rp.example.com/bye?again'],
    id_token_signed_response_alg: 'EdDSA',
    default_max_age: 900,
    require_auth_time: true,
  });
  const rp = (await ClientRegistry.load(file)).get('rp');
  t.same(
    [rp?.postLogoutRedirectUris, rp?.idTokenSignedResponseAlg, rp?.defaultMaxAge, rp?.requireAuthTime],
    [['https://rp.example.com/bye', 'https://rp.example.com/bye?again'], 'EdDSA', 900, true],
  );
  const plain = await clients(['add', '--file', file, ...RP.with(1, 'plain')]);
  t.equal(plain.code, 0, plain.stderr);
  t.same(
    Object.keys(JSON.parse(await readFile(file, 'utf8')).clients[1]).filter((key) => /logout|id_token|max_age|auth_time/.test(key)),
    [],
    'nothing written unless asked',
  );

  const list = await clients(['list', '--file', file]);
  t.equal(
    list.stdout,
    [
      'rp  auth=client_secret_basic  grants=authorization_code  scope=""  response_types=code  redirect_uris=https://rp.example.com/cb  post_logout_redirect_uris="https://rp.example.com/bye https://rp.example.com/bye?again"  id_token_alg=EdDSA  default_max_age=900  require_auth_time',
      'plain  auth=client_secret_basic  grants=authorization_code  scope=""  response_types=code  redirect_uris=https://rp.example.com/cb',
      '',
    ].join('\n'),
  );

  const before = await readFile(file, 'utf8');
  const refusals: [string[], number, string][] = [
    [['--id-token-alg', 'none'], 1, `${file}: client "x": id_token_signed_response_alg: 'none' is refused: ID tokens are always signed`],
    [['--id-token-alg', 'HS256'], 1, `${file}: client "x": id_token_signed_response_alg: HS256 (HMAC) is refused`],
    [
      ['--post-logout-redirect-uri', 'https://rp.example.com/bye#f'],
      1,
      `${file}: client "x": post_logout_redirect_uris.0: must not have a fragment`,
    ],
    [['--default-max-age', 'soon'], 2, '--default-max-age must be a whole number of seconds'],
    [['--default-max-age=-5'], 2, '--default-max-age must be a whole number of seconds'],
    [['--require-auth-time=yes'], 2, "Option '--require-auth-time' does not take an argument"],
  ];
  for (const [args, code, message] of refusals) {
    const refused = await clients(['add', '--file', file, ...RP.with(1, 'x'), ...args]);
    t.same([refused.code, refused.stdout], [code, ''], args.join(' '));
    t.match(refused.stderr, `error: ${message}`);
  }
  t.equal(await readFile(file, 'utf8'), before, 'the file is unchanged');
});
