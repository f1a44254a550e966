import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadOperatorDefaults } from '../src/config.js';
import { checkKeyFolder } from '../src/keys/folder-safety.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../src/keys/key-file.js';
import { pruneKeys, revokeKey, rotateKeys } from '../src/keys/rotation.js';
import { printedUsage, runCli, wholeSeconds } from './cli.js';
import { describeKeyChange } from './key-change-lines.js';

const USAGE = `usage: npm run keys:rotate -- [--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]
       npm run keys:rotate -- --revoke KID (or --revoke=KID) [--dir DIR] [--alg ALG] [--access-token-ttl SECONDS]
       npm run keys:rotate -- --prune [--dir DIR] [--alg ALG] [--access-token-ttl SECONDS]`;

/**
 * `--revoke <kid>` for any kid: parseArgs refuses a value that begins with `-` as
 * ambiguous, and an RFC 7638 thumbprint does about once in 64 keys. An operator revoking
 * a compromised key must never meet that, so the pair becomes `--revoke=<kid>` first.
 */
function joinRevokeValue(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (args[i] === '--revoke' && value !== undefined) {
      joined.push(`--revoke=${value}`);
      i++;
    } else {
      joined.push(args[i] as string);
    }
  }
  return joined;
}

await runCli(async () => {
  const { values } = parseArgs({
    args: joinRevokeValue(process.argv.slice(2)),
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
  const alg = values.alg as SigningAlgorithm | undefined;
  if (alg !== undefined && !SIGNING_ALGORITHMS.includes(alg)) throw new Error(`--alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const delay = wholeSeconds('--delay', values.delay, defaults.jwksCacheTtl);
  const accessTokenTtl = wholeSeconds('--access-token-ttl', values['access-token-ttl'], defaults.accessTokenTtl);
  if (values.revoke !== undefined && values.prune) throw new Error('--revoke and --prune cannot be combined');

  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const warning of await checkKeyFolder(dir)) process.stderr.write(`warning: ${warning}\n`);
  const changes =
    values.revoke !== undefined
      ? await revokeKey(dir, values.revoke, { alg, accessTokenTtl })
      : values.prune
        ? await pruneKeys(dir, { alg, accessTokenTtl })
        : await rotateKeys(dir, { alg, delay, accessTokenTtl });
  for (const change of changes) process.stdout.write(`${describeKeyChange(change)}\n`);
});
