import { type KeyRecord, SIGNING_ALGORITHMS, type SigningAlgorithm } from './key-file.js';

/**
 * Which chains a server needs and which a folder starts with: one for access tokens, and
 * one per algorithm ID tokens are signed with. Pure; the keystore and `keys rotate` both
 * decide the access-token chain here, so they agree.
 */

/** OpenID Connect Registration §2, id_token_signed_response_alg: "The default, if omitted, is RS256." */
export const ID_TOKEN_DEFAULT_ALG: SigningAlgorithm = 'RS256';

const newestOf = (keys: readonly KeyRecord[]): KeyRecord | undefined =>
  keys.reduce<KeyRecord | undefined>((a, k) => (!a || k.created_at > a.created_at ? k : a), undefined);

/**
 * The chain that signs access tokens: `configured` (ACCESS_TOKEN_SIGNING_ALG) when set;
 * otherwise ES256 when the folder has ES256 keys, else the algorithm of the newest key, so
 * that a folder from before chains signs as it did. RS256 keys count only when there is
 * no other: RS256 is the ID-token chain `keys rotate` starts by itself, and its newer keys
 * must not take access tokens over from an EdDSA or PS256 chain. ES256 for an empty folder.
 */
export function accessTokenAlgorithmOf(keys: readonly KeyRecord[], configured?: SigningAlgorithm): SigningAlgorithm {
  if (configured) return configured;
  if (keys.some((k) => k.alg === 'ES256')) return 'ES256';
  return (newestOf(keys.filter((k) => k.alg !== ID_TOKEN_DEFAULT_ALG)) ?? newestOf(keys))?.alg ?? 'ES256';
}

/** The chains `keys rotate` starts when missing: the access-token chain, and RS256 for ID tokens. */
export function defaultChains(keys: readonly KeyRecord[], configured: SigningAlgorithm | undefined): SigningAlgorithm[] {
  return [...new Set([accessTokenAlgorithmOf(keys, configured), ID_TOKEN_DEFAULT_ALG])];
}

/**
 * A client as far as signing goes: a `Client` of src/clients/registry.ts fits, with or
 * without `idTokenSignedResponseAlg`. `clientId` keeps the type from being "weak" (all
 * members optional), which TypeScript would refuse a `Client` without the field for.
 */
export interface ClientSigningPreference {
  readonly clientId: string;
  readonly idTokenSignedResponseAlg?: SigningAlgorithm | undefined;
}

/**
 * The algorithms a server needs a signer of: the access-token algorithm, RS256 (the
 * ID-token default), and every client's id_token_signed_response_alg; in the order of
 * SIGNING_ALGORITHMS.
 */
export function requiredSigningAlgorithms(
  accessTokenAlg: SigningAlgorithm,
  clients: readonly ClientSigningPreference[],
): SigningAlgorithm[] {
  const needed = new Set<SigningAlgorithm>([accessTokenAlg, ID_TOKEN_DEFAULT_ALG]);
  for (const client of clients) if (client.idTokenSignedResponseAlg) needed.add(client.idTokenSignedResponseAlg);
  return SIGNING_ALGORITHMS.filter((alg) => needed.has(alg));
}

/** What the checks below read of the keystore. */
export interface SigningChains {
  readonly accessTokenAlgorithm: SigningAlgorithm;
  signingAlgorithmsAt(now: number): SigningAlgorithm[];
}

/**
 * Each algorithm the server needs (requiredSigningAlgorithms) and whether a key of it signs
 * at `now`: what /readyz reports as `signing_algorithms`, and the server warns about.
 */
export function signingAlgorithmChecks(
  keys: SigningChains,
  clients: readonly ClientSigningPreference[],
  now: number,
): Partial<Record<SigningAlgorithm, boolean>> {
  const signing = keys.signingAlgorithmsAt(now);
  const needed = requiredSigningAlgorithms(keys.accessTokenAlgorithm, clients);
  return Object.fromEntries(needed.map((alg) => [alg, signing.includes(alg)]));
}

/** The needed algorithms no key signs with at `now`, each with the line to log about it. */
export function missingSigningAlgorithms(
  keys: SigningChains,
  clients: readonly ClientSigningPreference[],
  now: number,
): { alg: SigningAlgorithm; message: string }[] {
  const checks = signingAlgorithmChecks(keys, clients, now);
  return SIGNING_ALGORITHMS.filter((alg) => checks[alg] === false).map((alg) => ({
    alg,
    message: missingSigningAlgorithmMessage(alg, keys.accessTokenAlgorithm),
  }));
}

/** The log line for a needed algorithm no key signs with now. */
function missingSigningAlgorithmMessage(alg: SigningAlgorithm, accessTokenAlg: SigningAlgorithm): string {
  const what = alg === accessTokenAlg ? 'access tokens' : `ID tokens that need ${alg}`;
  return `no ${alg} key signs now: ${what} cannot be signed (never with another algorithm); run "oauth2-token-service keys rotate --alg ${alg}"`;
}
