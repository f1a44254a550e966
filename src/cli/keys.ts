import { mkdir } from 'node:fs/promises';
import { nowSeconds } from '../clock.js';
import { loadOperatorDefaults } from '../config/operator.js';
import { checkKeyFolder } from '../keys/folder-safety.js';
import { readKeyFolder, SIGNING_ALGORITHMS } from '../keys/key-file.js';
import { keyStateAt, signingKeyAt } from '../keys/lifecycle.js';
import { type KeyChange, pruneKeys, revokeKey, rotateKeys } from '../keys/rotation.js';
import { commandAuditLog, operatorField } from './audit.js';
import { type CliIo, type Command, type CommandGroup, oneOf, parseCommandLine, TOOL, wholeSeconds } from './command.js';
import { describeKey, describeKeyChange } from './key-lines.js';

/** `keys rotate|revoke|prune|list`: the signing keys in KEYS_DIR (src/keys/rotation.ts does the work). */

const FOLDER_OPTIONS = {
  dir: { type: 'string' },
  alg: { type: 'string' },
  'access-token-ttl': { type: 'string' },
} as const;

/** The options shared by the commands that change the folder, with their defaults from the environment. */
function folderSettings(
  values: { dir?: string | undefined; alg?: string | undefined; 'access-token-ttl'?: string | undefined },
  io: CliIo,
) {
  const alg = oneOf('--alg', values.alg, SIGNING_ALGORITHMS);
  const defaults = loadOperatorDefaults(io.env);
  const accessTokenTtl = wholeSeconds('--access-token-ttl', values['access-token-ttl'], defaults.accessTokenTtl);
  return { dir: values.dir ?? defaults.keysDir, alg, accessTokenTtl, now: nowSeconds(io.clock), defaults };
}

/** Warnings about the folder go to stderr; the folder is created (0700) if missing. */
async function changeFolder(dir: string, io: CliIo, change: () => Promise<KeyChange[]>): Promise<KeyChange[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const warning of await checkKeyFolder(dir)) io.stderr.write(`warning: ${warning}\n`);
  const changes = await change();
  for (const line of changes.map(describeKeyChange)) io.stdout.write(`${line}\n`);
  return changes;
}

const FOLDER_HELP = `--dir defaults to KEYS_DIR (./keys), --access-token-ttl to ACCESS_TOKEN_TTL (3600): how long a
retired key stays published, so that every token it signed can still be verified.
Each run prints one line per key (created, retiring, extended, kept, deleted, revoked) and
deletes keys whose tokens have all expired; after it, some key signs at every instant.`;

const rotate: Command = {
  name: 'rotate',
  synopsis: '[--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]',
  summary: 'publish a new signing key now; it signs after --delay',
  description: `The first run (or one when no key signs now) creates a key that signs at once. Later runs
publish the new key at once and make it sign after --delay (default JWKS_CACHE_TTL, 300),
so resource servers with a cached JWKS know it first; the current key stops signing then.
--alg: ES256 (default), EdDSA, RS256 or PS256.
${FOLDER_HELP}`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { ...FOLDER_OPTIONS, delay: { type: 'string' } });
    const { dir, alg, accessTokenTtl, now, defaults } = folderSettings(values, io);
    const delay = wholeSeconds('--delay', values.delay, defaults.jwksCacheTtl);
    await changeFolder(dir, io, () => rotateKeys(dir, { alg, delay, accessTokenTtl, now }));
  },
};

const REVOKE_VALUE_OPTIONS = ['--dir', '--alg', '--access-token-ttl'];
const REVOKE_FLAGS = ['--help', '-h'];

/**
 * `keys revoke <kid>` for any kid: parseArgs reads an argument that begins with `-` as an
 * option, and an RFC 7638 thumbprint begins with `-` about once in 64 keys. An operator
 * revoking a compromised key must never meet that, so an argument that is not one of
 * this command's options (nor an option's value) is moved behind `--`, as the kid.
 */
function kidsBehindDoubleDash(args: readonly string[]): string[] {
  const options: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    const name = arg.split('=', 1)[0] as string;
    if (REVOKE_VALUE_OPTIONS.includes(name)) {
      options.push(arg);
      if (!arg.includes('=') && i + 1 < args.length) options.push(args[++i] as string);
    } else if (REVOKE_FLAGS.includes(arg)) {
      options.push(arg);
    } else {
      positionals.push(arg);
    }
  }
  return [...options, '--', ...positionals];
}

const revoke: Command = {
  name: 'revoke',
  synopsis: '<kid> [--dir DIR] [--alg ALG] [--access-token-ttl SECONDS]',
  summary: 'delete a key at once (a compromised key)',
  description: `Deletes the key <kid> at once (any kid, also one that begins with "-"). If it was the key
signing now, a replacement signs at once (--alg, default: the revoked key's algorithm)
until the next scheduled key takes over. Send SIGHUP to every server afterwards.
Writes an audit line (event key.revoked) to stderr, shaped as the servers' audit lines.
${FOLDER_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(kidsBehindDoubleDash(args), FOLDER_OPTIONS, ['kid']);
    const { dir, alg, accessTokenTtl, now } = folderSettings(values, io);
    const kid = positionals[0] as string;
    const changes = await changeFolder(dir, io, () => revokeKey(dir, kid, { alg, accessTokenTtl, now }));
    const replacement = changes.find((change) => change.action === 'created' && change.stopGap?.replaces === kid);
    commandAuditLog(io).emit({
      event: 'key.revoked',
      kid,
      ...(replacement ? { replacementKid: replacement.key.kid } : {}),
      ...operatorField(),
    });
  },
};

const prune: Command = {
  name: 'prune',
  synopsis: '[--dir DIR] [--alg ALG] [--access-token-ttl SECONDS]',
  summary: 'delete only the keys whose tokens have all expired',
  description: `Never deletes a key that signs now or is still published. If no key would sign now, one is
created that signs at once (--alg, default: the newest key's algorithm).
${FOLDER_HELP}`,
  async run(args, io) {
    const { values } = parseCommandLine(args, FOLDER_OPTIONS);
    const { dir, alg, accessTokenTtl, now } = folderSettings(values, io);
    await changeFolder(dir, io, () => pruneKeys(dir, { alg, accessTokenTtl, now }));
  },
};

const list: Command = {
  name: 'list',
  synopsis: '[--dir DIR]',
  summary: 'each key with its state (signing, scheduled, retiring, expired) and times',
  description: `One line per key, in the order they sign: kid, algorithm, state, signing window, end of
publication, creation (ISO 8601, UTC). signing: the key that signs now; scheduled: published,
signs later; retiring: published until its tokens expire; expired: the next run deletes it.
Never prints key material. --dir defaults to KEYS_DIR (./keys).`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { dir: { type: 'string' } });
    const dir = values.dir ?? loadOperatorDefaults(io.env).keysDir;
    for (const warning of await checkKeyFolder(dir)) io.stderr.write(`warning: ${warning}\n`);
    const keys = (await readKeyFolder(dir)).sort((a, b) => a.signs_from - b.signs_from || a.created_at - b.created_at);
    const now = nowSeconds(io.clock);
    for (const key of keys) io.stdout.write(`${describeKey(key, keyStateAt(key, keys, now))}\n`);
    if (!signingKeyAt(keys, now))
      io.stderr.write(`warning: no key in ${dir} signs now: the server refuses to start (run "${TOOL} keys rotate")\n`);
  },
};

export const keysGroup: CommandGroup = { name: 'keys', summary: 'signing keys in KEYS_DIR', commands: [rotate, revoke, prune, list] };
