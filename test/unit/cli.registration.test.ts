import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { loadConfig } from '../../src/config/index.js';
import { runCommand } from '../helpers/cli.js';

/** `oauth2-token-service registration token`: an initial access token, shown once, and the digest servers accept it by. */

const OUTPUT =
  /^initial_access_token: ([A-Za-z0-9_-]{43})\ndigest: (sha256:[A-Za-z0-9_-]{43})\n\(the token is shown once: add the digest to REGISTRATION_INITIAL_ACCESS_TOKENS and restart the servers\)\n$/;

t.test('registration token prints a 256-bit token once and its digest', async (t) => {
  const first = await runCommand(['registration', 'token']);
  t.same([first.code, first.stderr], [0, '']);
  const [, token, digest] = OUTPUT.exec(first.stdout) ?? [];
  t.ok(token && digest, 'two lines and the reminder');
  t.equal(digest, hashClientSecret(token as string), 'the digest is the SHA-256 of the token');
  const config = loadConfig({ DYNAMIC_CLIENT_REGISTRATION: 'token', REGISTRATION_INITIAL_ACCESS_TOKENS: digest as string });
  t.same(config.registrationInitialAccessTokens, [digest], 'the digest is what REGISTRATION_INITIAL_ACCESS_TOKENS takes');
  const second = await runCommand(['registration', 'token']);
  t.not(OUTPUT.exec(second.stdout)?.[1], token, 'a new token every run');
});

t.test('registration token takes no argument', async (t) => {
  const run = await runCommand(['registration', 'token', 'extra']);
  t.same([run.code, run.stdout], [2, '']);
  t.equal(run.stderr, "error: unexpected argument 'extra'\nusage: oauth2-token-service registration token\n");
});
