import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadOperatorDefaults } from '../src/config.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../src/keys/key-file.js';
import { pruneKeys, revokeKey, rotateKeys, type KeyChange } from '../src/keys/rotation.js';
import { printedUsage, runCli, wholeSeconds } from './cli.js';

const USAGE = `usage: npm run keys:rotate -- [--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]
       npm run keys:rotate -- --revoke KID [--dir DIR]
       npm run keys:rotate -- --prune [--dir DIR]`;

function iso(seconds: number | undefined): string {
  return seconds === undefined ? 'open-ended' : new Date(seconds * 1000).toISOString();
}

function describe({ action, key }: KeyChange): string {
  const name = `${action.padEnd(8)} ${key.kid} ${key.alg}`;
  switch (action) {
    case 'created':
      return `${name} published now, signs from ${iso(key.signs_from)}${key.signs_until ? ` until ${iso(key.signs_until)}` : ''}`;
    case 'retiring':
      return `${name} signs until ${iso(key.signs_until)}, published until ${iso(key.publish_until)}`;
    case 'kept':
      return `${name} signs ${iso(key.signs_from)} to ${iso(key.signs_until)}, published until ${iso(key.publish_until)}`;
    case 'deleted':
      return `${name} removed: every token it signed expired at ${iso(key.publish_until)}`;
    case 'revoked':
      return `${name} removed at once: its tokens fail once verifiers refresh their JWKS`;
  }
}

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      alg: { type: 'string' },
      delay: { type: 'string' },
      'access-token-ttl': { type: 'string' },
      revoke: { type: 'string' },
      prune: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (printedUsage(values.help, USAGE)) return;
  const defaults = loadOperatorDefaults();
  const dir = values.dir ?? defaults.keysDir;
  const alg = (values.alg ?? 'ES256') as SigningAlgorithm;
  if (!SIGNING_ALGORITHMS.includes(alg)) throw new Error(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const delay = wholeSeconds('--delay', values.delay, defaults.jwksCacheTtl);
  const accessTokenTtl = wholeSeconds('--access-token-ttl', values['access-token-ttl'], defaults.accessTokenTtl);
  if (values.revoke !== undefined && values.prune) throw new Error('--revoke and --prune cannot be combined');

  await mkdir(dir, { recursive: true, mode: 0o700 });
  const changes =
    values.revoke !== undefined
      ? await revokeKey(dir, values.revoke, { alg, accessTokenTtl })
      : values.prune
        ? await pruneKeys(dir)
        : await rotateKeys(dir, { alg, delay, accessTokenTtl });
  for (const change of changes) process.stdout.write(`${describe(change)}\n`);
});
