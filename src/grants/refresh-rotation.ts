import type { Client } from '../clients/registry.js';
import type { DpopBinding } from '../dpop/token-endpoint.js';
import { InvalidGrant } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { RoleHolders } from '../users/roles.js';
import type { RefreshFamilyRecord, RotationOutcome } from '../store/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import type { IdTokens } from '../oidc/id-token.js';
import type { SubjectChecks } from '../users/subject-status.js';
import { issuedEvent, type TokenResponse } from './types.js';

/** What a rotation needs, whatever the token's format. */
export interface RefreshRotationDependencies {
  readonly accessTokens: AccessTokens;
  readonly idTokens: IdTokens;
  readonly resources: ResourceLookup;
  /** Whose roles are read now (USERS_FILE): a user who lost `admin` loses the admin scopes at refresh. */
  readonly users: RoleHolders;
  /** REFRESH_TOKEN_IDLE_TTL: a successor dies unused after this. */
  readonly idleSeconds: number;
  /** REFRESH_REUSE_GRACE, in seconds (0: off); confidential clients only (see refreshReuseGraceSeconds). */
  readonly reuseGraceSeconds: number;
  readonly events: SecurityEvents;
  /** The operator's marks, in memory: a disabled user's refresh tokens are refused without a store round trip. */
  readonly subjects: SubjectChecks;
}

/** What a refresh, a code or an assertion of a disabled user gets. */
export const USER_DISABLED = 'the user is disabled';

export const INVALID_REFRESH_TOKEN = 'the refresh token is invalid, expired, revoked, or was issued to another client';

/**
 * How long a retry of a just-rotated token gets the same successor. RFC 9700 §4.14.2:
 * "Authorization servers MUST utilize one of these methods to detect refresh token
 * replay by malicious actors for public clients" (sender-constraining or rotation). A
 * public client's refresh token alone is enough to use it, so a grace answer would hand
 * a thief the live successor, undetected: public clients get strict reuse detection. A
 * confidential client must also authenticate, so its thief needs the secret as well.
 * A family sender-constrained to the client's DPoP key earns a public client the window again.
 */
export function refreshReuseGraceSeconds(client: Client, configuredSeconds: number, family: RefreshFamilyRecord): number {
  if (client.authMethod !== 'none') return configuredSeconds;
  // A public client's family bound to its DPoP key: a retry must come with a fresh proof by
  // that key, which a thief of the refresh token lacks, so the window is safe again.
  return family.jkt !== undefined ? configuredSeconds : 0;
}

/** The family of a presented token, once it is known to be this client's and its user's, with the DPoP key it is bound to. */
export function checkedFamily(
  family: RefreshFamilyRecord | undefined,
  client: Client,
  dpop: DpopBinding | undefined,
  subjects: SubjectChecks,
): RefreshFamilyRecord {
  if (!family || family.clientId !== client.clientId) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
  if (subjects.isDisabled(family.sub)) throw new InvalidGrant(USER_DISABLED);
  // RFC 9449 §5: "the authorization server MUST ensure the same key is used in all
  // subsequent access token requests using the refresh token".
  if (family.jkt !== undefined && family.jkt !== dpop?.jkt) {
    throw new InvalidGrant('the refresh token is bound to a DPoP key: send a DPoP proof made with that key');
  }
  return family;
}

export interface RotationContext {
  readonly client: Client;
  readonly family: RefreshFamilyRecord;
  readonly grantId: string;
  readonly issued: { readonly jti: string };
  readonly target: { readonly scope: readonly string[]; readonly resources: readonly { readonly resource: string }[] };
  /** The successor response, returned when the rotation succeeded. */
  readonly response: TokenResponse;
}

/** The answer to the store's rotation outcome; `openResponse` opens a grace record with the presented token. */
export function rotationAnswer(
  outcome: RotationOutcome,
  context: RotationContext,
  deps: Pick<RefreshRotationDependencies, 'events'>,
  openResponse: (sealed: string) => string | undefined,
): TokenResponse {
  const { client, family, grantId } = context;
  switch (outcome.status) {
    case 'rotated':
      deps.events.emit(issuedEvent('refresh_token', client.clientId, family.sub, context.issued, context.target, grantId, true));
      return context.response;
    case 'grace': {
      const earlier = openResponse(outcome.sealedResponse);
      if (!earlier) throw new InvalidGrant(INVALID_REFRESH_TOKEN);
      return JSON.parse(earlier) as TokenResponse;
    }
    case 'reused':
      deps.events.emit({ event: 'refresh.reuse_detected', clientId: client.clientId, sub: family.sub, grantId });
      deps.events.emit({ event: 'grant.revoked', grantId, clientId: client.clientId, reason: 'refresh_reuse' });
      throw new InvalidGrant('the refresh token was already used: every token of this grant is now revoked');
    case 'invalid':
      throw new InvalidGrant(INVALID_REFRESH_TOKEN);
  }
}
