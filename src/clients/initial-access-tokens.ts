import { InvalidToken } from '../errors/index.js';
import { storedSecretDigest, verifyClientSecret } from './secret.js';

/**
 * Initial access tokens (RFC 7591 §3: "The client registration endpoint MAY be an OAuth 2.0
 * protected resource and accept an initial access token"), required when
 * DYNAMIC_CLIENT_REGISTRATION=token. The server holds only their SHA-256 digests
 * (REGISTRATION_INITIAL_ACCESS_TOKENS); `registration token` mints one.
 */
export class InitialAccessTokens {
  private readonly digests: readonly Buffer[];

  constructor(storedHashes: readonly string[]) {
    this.digests = storedHashes.map((hash) => storedSecretDigest(hash)).filter((digest): digest is Buffer => digest !== undefined);
  }

  /** Throws InvalidToken unless `token` is one of them; every digest is compared, in constant time. */
  verify(token: string | undefined): void {
    if (token === undefined) throw new InvalidToken('an initial access token is required to register a client');
    let valid = false;
    for (const digest of this.digests) valid = verifyClientSecret(token, digest) || valid;
    if (!valid) throw new InvalidToken('the initial access token is invalid');
  }
}
