import type { Client } from '../clients/registry.js';
import type { DpopBinding } from '../dpop/token-endpoint.js';
import { InvalidGrant } from '../errors/index.js';
import type { FirstRefreshToken, RefreshFamilyRecord, RefreshFamilyStore, RefreshLifetimes } from '../store/types.js';
import { newRefreshTokenHead, type RefreshTokenHead } from '../tokens/refresh-token-format.js';
import type { RefreshTokenSealer, RefreshTokenSealing } from '../tokens/refresh-token-sealer.js';
import type { GrantIndexing } from './grant-index.js';

/**
 * RFC 9449 §5: "Refresh tokens issued to confidential clients are not bound to the DPoP
 * proof public key because they are already sender-constrained with a different existing
 * mechanism", while for public clients "the refresh token MUST be bound to the respective
 * public key": the family of a public client that sent a proof keeps its thumbprint.
 */
export function familyKeyBinding(client: Client, dpop: DpopBinding | undefined): { readonly jkt?: string } {
  return client.authMethod === 'none' && dpop !== undefined ? { jkt: dpop.jkt } : {};
}

/** The first token of a family, drawn before the store records it: its head, and what the store needs of it. */
export interface FirstTokenDraft {
  readonly head: RefreshTokenHead;
  readonly sealer: RefreshTokenSealer;
  readonly store: FirstRefreshToken;
}

/** Starts the refresh-token family of a grant (authorization_code, password). */
export class RefreshFamilies {
  constructor(
    private readonly store: RefreshFamilyStore,
    private readonly lifetimes: RefreshLifetimes,
    private readonly grantIndexing: GrantIndexing,
    private readonly sealing: RefreshTokenSealing,
  ) {}

  /**
   * A first token for `grantId`, not yet recorded: a code redemption records it in the
   * same step as it consumes the code. The sealer is loaded first, so the store is never
   * left with a family whose token could not be made.
   */
  async draftFirstToken(grantId: string): Promise<FirstTokenDraft> {
    const sealer = await this.sealing.sealer();
    const head = newRefreshTokenHead(grantId, 0);
    return { head, sealer, store: { digest: head.digest, lifetimes: this.lifetimes } };
  }

  /**
   * Records the family of a new grant (the password grant) and returns its first token.
   * The family keeps the grant's full scope, even when this token request narrowed it.
   */
  async start(grantId: string, family: RefreshFamilyRecord): Promise<string> {
    const draft = await this.draftFirstToken(grantId);
    // The index entry (for the family's whole life) and the family are written together, not
    // one after the other. Safe all the same: the token is handed out only once both are
    // acknowledged, so a family whose index write failed never had a token delivered.
    const [, started] = await Promise.all([
      this.grantIndexing.recordFor(
        { grantId, ...family, resources: family.resources ?? [], grantedAt: family.authTime },
        this.lifetimes.absoluteSeconds,
      ),
      this.store.startRefreshFamily(grantId, draft.store),
    ]);
    if (!started) throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
    return draft.sealer.seal(draft.head, family);
  }
}
