import { createPrivateKey, type KeyObject } from 'node:crypto';
import { importJWK, type JWK } from 'jose';
import { checkKeyFolder } from './folder-safety.js';
import { KeyFolderError, type KeyRecord, type KeyTimes, readKeyFolder, type SigningAlgorithm } from './key-file.js';
import { chainOf, isPublishedAt, nextScheduledKey, signingAlgorithmsAt, signingKeyFor } from './lifecycle.js';
import { accessTokenAlgorithmOf } from './signing-algorithms.js';

type JsonWebKeyInput = Extract<Parameters<typeof createPrivateKey>[0], { format: 'jwk' }>;

export type SigningKey = Exclude<Awaited<ReturnType<typeof importJWK>>, Uint8Array>;

/** A key as the server uses it: the record plus its imported private key and public JWK. */
export interface LoadedKey extends KeyRecord {
  /** Signs tokens (node:crypto). */
  readonly privateKey: KeyObject;
  /** Verifies our own tokens (jose), for introspection and revocation. */
  readonly publicKey: SigningKey;
  readonly publicJwk: Readonly<JWK>;
}

/** RFC 7517 public members per key type; private parameters never leave this module. */
const PUBLIC_MEMBERS: Record<KeyRecord['jwk']['kty'], readonly string[]> = {
  EC: ['crv', 'x', 'y'],
  OKP: ['crv', 'x'],
  RSA: ['n', 'e'],
};

function publicJwkOf(record: KeyRecord): JWK {
  const source = record.jwk as Record<string, unknown>;
  const jwk: Record<string, unknown> = { kty: record.jwk.kty };
  for (const member of PUBLIC_MEMBERS[record.jwk.kty]) jwk[member] = source[member];
  return Object.freeze({ ...jwk, kid: record.kid, alg: record.alg, use: 'sig' }) as JWK;
}

/** Loads the folder, refusing one that others could have planted a key in; returns the keys and the folder's warnings. */
async function loadKeys(dir: string): Promise<{ keys: LoadedKey[]; warnings: string[] }> {
  const warnings = await checkKeyFolder(dir);
  const records = await readKeyFolder(dir);
  const keys = await Promise.all(
    records.map(async (record) => {
      try {
        const publicJwk = publicJwkOf(record);
        const privateKey = createPrivateKey({ key: record.jwk as JsonWebKeyInput['key'], format: 'jwk' });
        const publicKey = (await importJWK(publicJwk, record.alg)) as SigningKey;
        return Object.freeze({ ...record, privateKey, publicKey, publicJwk });
      } catch (err) {
        throw new KeyFolderError(`key file ${record.kid}.json: unusable ${record.alg} key (${(err as Error).message})`);
      }
    }),
  );
  return { keys, warnings };
}

export interface KeystoreOptions {
  /** ACCESS_TOKEN_SIGNING_ALG: the chain that signs access tokens; unset: chosen from the folder (accessTokenAlgorithmOf). */
  readonly accessTokenAlg?: SigningAlgorithm | undefined;
}

/** Why no access token can be signed at `now` with these keys, or undefined when one can. */
function noAccessTokenSigner(dir: string, keys: readonly LoadedKey[], alg: SigningAlgorithm, now: number): string | undefined {
  if (keys.length === 0) return `no signing key in ${dir}: create one with "oauth2-token-service keys rotate"`;
  if (signingKeyFor(keys, alg, now)) return undefined;
  const chain = chainOf(keys, alg).length;
  const rotate = `"oauth2-token-service keys rotate --alg ${alg}"`;
  return chain === 0
    ? `no ${alg} key in ${dir}, which ACCESS_TOKEN_SIGNING_ALG names for access tokens: create one with ${rotate}`
    : `no ${alg} key in ${dir} signs now (${chain} ${alg} key file(s), none inside its signing window): run ${rotate}`;
}

/**
 * The signing keys of KEYS_DIR: a chain per algorithm (src/keys/lifecycle.ts), one of which
 * signs access tokens. `reload()` swaps in a new set only once the whole folder loaded; on
 * failure (an unsafe folder too) the previous set stays and the error is returned to log.
 * Warnings are returned, not logged: this module knows no logger.
 */
export class Keystore {
  private accessTokenAlg: SigningAlgorithm;

  private constructor(
    readonly dir: string,
    private keys: readonly LoadedKey[],
    private folderWarnings: readonly string[],
    private readonly configuredAccessTokenAlg: SigningAlgorithm | undefined,
  ) {
    this.accessTokenAlg = accessTokenAlgorithmOf(keys, configuredAccessTokenAlg);
  }

  /** Loads the folder; refuses (throws) when it is unsafe or no key of the access-token chain signs at `now`. */
  static async open(dir: string, now: number, options: KeystoreOptions = {}): Promise<Keystore> {
    const { keys, warnings } = await loadKeys(dir);
    const keystore = new Keystore(dir, keys, warnings, options.accessTokenAlg);
    const refusal = noAccessTokenSigner(dir, keys, keystore.accessTokenAlgorithm, now);
    if (refusal) throw new KeyFolderError(refusal);
    return keystore;
  }

  /** How many key files are loaded. */
  get keyCount(): number {
    return this.keys.length;
  }

  /** What is unwise but allowed about the folder as last loaded (a key file others can read). */
  get warnings(): readonly string[] {
    return this.folderWarnings;
  }

  /** The algorithm of the chain that signs access tokens: ACCESS_TOKEN_SIGNING_ALG, or chosen from the folder as last loaded. */
  get accessTokenAlgorithm(): SigningAlgorithm {
    return this.accessTokenAlg;
  }

  async reload(): Promise<{ ok: true; count: number; warnings: readonly string[] } | { ok: false; error: Error }> {
    try {
      const { keys, warnings } = await loadKeys(this.dir);
      this.keys = keys;
      this.accessTokenAlg = accessTokenAlgorithmOf(keys, this.configuredAccessTokenAlg);
      this.folderWarnings = warnings;
      return { ok: true, count: keys.length, warnings };
    } catch (err) {
      return { ok: false, error: err as Error };
    }
  }

  /** The key that signs access tokens at `now`: the signer of the access-token chain. */
  signingKeyAt(now: number): LoadedKey | undefined {
    return signingKeyFor(this.keys, this.accessTokenAlg, now);
  }

  /** The key of algorithm `alg` that signs at `now`; undefined when none does (never a key of another algorithm). */
  signingKeyFor(alg: SigningAlgorithm, now: number): LoadedKey | undefined {
    return signingKeyFor(this.keys, alg, now);
  }

  /** The algorithms some key signs with at `now`, in the order of SIGNING_ALGORITHMS. */
  signingAlgorithmsAt(now: number): SigningAlgorithm[] {
    return signingAlgorithmsAt(this.keys, now);
  }

  /** The scheduled key of the access-token chain that signs next after `now`'s signer, if one is scheduled (see nextScheduledKey). */
  nextSigningKeyAfter(now: number): LoadedKey | undefined {
    return nextScheduledKey(chainOf(this.keys, this.accessTokenAlg), now);
  }

  /** The published key with this kid, to verify our own tokens; undefined if none. */
  publishedKey(kid: string | undefined, now: number): LoadedKey | undefined {
    return this.keys.find((k) => k.kid === kid && isPublishedAt(k, now));
  }

  /** Every loaded key's identity and times, without key material (the admin API shows them). */
  keyTimes(): KeyTimes[] {
    return this.keys.map(({ kid, alg, created_at, signs_from, signs_until, publish_until }) => ({
      kid,
      alg,
      created_at,
      signs_from,
      ...(signs_until !== undefined ? { signs_until } : {}),
      ...(publish_until !== undefined ? { publish_until } : {}),
    }));
  }

  /** RFC 7517 JWK Set of every key published at `now`, of every chain: the signers, their successors, their predecessors. */
  jwksAt(now: number): { keys: JWK[] } {
    return { keys: this.keys.filter((k) => isPublishedAt(k, now)).map((k) => k.publicJwk) };
  }
}
