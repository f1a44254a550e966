import { mkdir } from 'node:fs/promises';
import { nowSeconds } from '../clock.js';
import { loadOperatorDefaults } from '../config/operator.js';
import { checkKeyFolder } from '../keys/folder-safety.js';
import { type KeyRecord, readKeyFolder, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../keys/key-file.js';
import { chainAlgorithms, keyStateAt, signingKeyFor } from '../keys/lifecycle.js';
import { type KeyChange, pruneKeys, revokeKey, rotateKeys } from '../keys/rotation.js';
import { accessTokenAlgorithmOf } from '../keys/signing-algorithms.js';
import { commandAuditLog, operatorField } from './audit.js';
import { type CliIo, type Command, type CommandGroup, oneOf, parseCommandLine, TOOL, wholeSeconds } from './command.js';
import { describeKey, describeKeyChange } from './key-lines.js';

/** `keys rotate|revoke|prune|list`: the signing keys in KEYS_DIR (src/keys/rotation.ts does the work). */

const FOLDER_OPTIONS = {
  dir: { type: 'string' },
  'access-token-ttl': { type: 'string' },
} as const;
const ALG_OPTION = { alg: { type: 'string' } } as const;

/** The options shared by the commands that change the folder, with their defaults from the environment. */
function folderSettings(values: { dir?: string | undefined; 'access-token-ttl'?: string | undefined }, io: CliIo) {
  const defaults = loadOperatorDefaults(io.env);
  const accessTokenTtl = wholeSeconds('--access-token-ttl', values['access-token-ttl'], defaults.accessTokenTtl);
  return { dir: values.dir ?? defaults.keysDir, accessTokenTtl, now: nowSeconds(io.clock), defaults };
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
Each run prints one line per key of the chains it works on (created, retiring, extended,
kept, deleted, revoked), chain by chain, and deletes their keys whose tokens have all
expired; after it, in every chain, some key signs at every instant.`;

const rotate: Command = {
  name: 'rotate',
  synopsis: '[--dir DIR] [--alg ES256|EdDSA|RS256|PS256] [--delay SECONDS] [--access-token-ttl SECONDS]',
  summary: 'publish a new signing key in every chain (or in --alg only); it signs after --delay',
  description: `The folder holds a chain of keys per algorithm: one signs access tokens (ACCESS_TOKEN_SIGNING_ALG,
default ES256), RS256 signs ID tokens unless a client asks for another. Without --alg, a run
rotates every chain in the folder and starts the access-token chain and the RS256 chain when
missing; --alg ES256, EdDSA, RS256 or PS256 rotates (or starts) that chain only. A chain's
first key (or one when none of its keys signs now) signs at once. Later runs publish the new
key at once and make it sign after --delay (default JWKS_CACHE_TTL, 300), so resource
servers with a cached JWKS know it first; the chain's current key stops signing then.
${FOLDER_HELP}`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { ...FOLDER_OPTIONS, ...ALG_OPTION, delay: { type: 'string' } });
    const { dir, accessTokenTtl, now, defaults } = folderSettings(values, io);
    const alg = oneOf('--alg', values.alg, SIGNING_ALGORITHMS);
    const delay = wholeSeconds('--delay', values.delay, defaults.jwksCacheTtl);
    const accessTokenAlg = defaults.accessTokenSigningAlg;
    await changeFolder(dir, io, () => rotateKeys(dir, { alg, accessTokenAlg, delay, accessTokenTtl, now }));
  },
};

const REVOKE_VALUE_OPTIONS = ['--dir', '--access-token-ttl'];
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
  synopsis: '<kid> [--dir DIR] [--access-token-ttl SECONDS]',
  summary: 'delete a key at once (a compromised key)',
  description: `Deletes the key <kid> at once (any kid, also one that begins with "-"). If it was the key of
its chain signing now, a replacement of the same algorithm signs at once until the chain's
next scheduled key takes over. Send SIGHUP to every server afterwards.
Writes an audit line (event key.revoked) to stderr, shaped as the servers' audit lines.
${FOLDER_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(kidsBehindDoubleDash(args), FOLDER_OPTIONS, ['kid']);
    const { dir, accessTokenTtl, now } = folderSettings(values, io);
    const kid = positionals[0] as string;
    const changes = await changeFolder(dir, io, () => revokeKey(dir, kid, { accessTokenTtl, now }));
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
  description: `Works on every chain in the folder, or on --alg's only; never starts one. Never deletes a key
that signs now or is still published. If no key of a chain would sign now, one of its
algorithm is created that signs at once.
${FOLDER_HELP}`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { ...FOLDER_OPTIONS, ...ALG_OPTION });
    const { dir, accessTokenTtl, now } = folderSettings(values, io);
    const alg = oneOf('--alg', values.alg, SIGNING_ALGORITHMS);
    await changeFolder(dir, io, () => pruneKeys(dir, { alg, accessTokenTtl, now }));
  },
};

/** What `keys list` warns about: each chain with no key signing now, and a folder without any. */
function signerWarnings(dir: string, keys: readonly KeyRecord[], accessTokenAlg: SigningAlgorithm, now: number): string[] {
  if (keys.length === 0) return [`no key in ${dir} signs now: the server refuses to start (run "${TOOL} keys rotate")`];
  const chains = new Set([accessTokenAlg, ...chainAlgorithms(keys)]);
  return SIGNING_ALGORITHMS.filter((alg) => chains.has(alg) && !signingKeyFor(keys, alg, now)).map((alg) => {
    const consequence = alg === accessTokenAlg ? 'the server refuses to start' : `nothing is signed with ${alg}`;
    return `no ${alg} key in ${dir} signs now: ${consequence} (run "${TOOL} keys rotate --alg ${alg}")`;
  });
}

const list: Command = {
  name: 'list',
  synopsis: '[--dir DIR]',
  summary: 'each key with its state (signing, scheduled, retiring, expired) and times',
  description: `One line per key, chain by chain (ES256, EdDSA, RS256, PS256), each in the order its keys
sign: kid, algorithm, state, signing window, end of publication, creation (ISO 8601, UTC).
signing: the key of its chain that signs now; scheduled: published, signs later; retiring:
published until its tokens expire; expired: the next run deletes it. Never prints key
material. --dir defaults to KEYS_DIR (./keys). Warns about a chain none of whose keys signs
now (the access-token chain: ACCESS_TOKEN_SIGNING_ALG, or as the server picks it).`,
  async run(args, io) {
    const { values } = parseCommandLine(args, { dir: { type: 'string' } });
    const defaults = loadOperatorDefaults(io.env);
    const dir = values.dir ?? defaults.keysDir;
    for (const warning of await checkKeyFolder(dir)) io.stderr.write(`warning: ${warning}\n`);
    const chainOrder = (k: KeyRecord) => SIGNING_ALGORITHMS.indexOf(k.alg);
    const keys = (await readKeyFolder(dir)).sort(
      (a, b) => chainOrder(a) - chainOrder(b) || a.signs_from - b.signs_from || a.created_at - b.created_at,
    );
    const now = nowSeconds(io.clock);
    for (const key of keys) io.stdout.write(`${describeKey(key, keyStateAt(key, keys, now))}\n`);
    const accessTokenAlg = accessTokenAlgorithmOf(keys, defaults.accessTokenSigningAlg);
    for (const warning of signerWarnings(dir, keys, accessTokenAlg, now)) io.stderr.write(`warning: ${warning}\n`);
  },
};

export const keysGroup: CommandGroup = { name: 'keys', summary: 'signing keys in KEYS_DIR', commands: [rotate, revoke, prune, list] };
