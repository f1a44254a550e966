import type { Clock } from '../clock.js';
import type { SecurityEvents } from '../events/types.js';
import type { ResourceLookup } from '../resources/indicators.js';
import type { RefreshLifetimes, Store } from '../store/types.js';
import type { IdTokens } from '../oidc/id-token.js';
import type { AccessTokens } from '../tokens/access-token.js';
import type { RefreshTokenSealing } from '../tokens/refresh-token-sealer.js';
import type { RoleHolders } from '../users/roles.js';
import type { PasswordSignIn } from '../users/sign-in.js';
import { NO_SUBJECT_CHECKS, type SubjectChecks } from '../users/subject-status.js';
import { authorizationCodeGrant } from './authorization-code.js';
import type { DeviceAuthorizations } from '../device/device-authorizations.js';
import { deviceCodeGrant } from './device-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import type { GrantIndexing } from './grant-index.js';
import { passwordGrant } from './password.js';
import { RefreshFamilies } from './refresh-family.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant, type UpstreamTokenSource } from './token-exchange.js';
import { type JwtBearerDependencies, jwtBearerGrant } from './jwt-bearer.js';
import type { Grant } from './types.js';

export interface GrantTableDependencies {
  /** ID tokens for grants with `openid` (OpenID Connect). */
  readonly idTokens: IdTokens;
  readonly store: Store;
  readonly accessTokens: AccessTokens;
  /** The registered resources (RFC 8707), read on every request. */
  readonly resources: ResourceLookup;
  /** Whose roles decide the admin scopes (USERS_FILE, read at every request). */
  readonly users: RoleHolders;
  readonly signIn: PasswordSignIn;
  readonly clock: Clock;
  /** Lists each new grant under its user and client (grant administration). */
  readonly grantIndexing: GrantIndexing;
  readonly refreshLifetimes: RefreshLifetimes;
  /** REFRESH_REUSE_GRACE, in seconds. */
  readonly refreshReuseGraceSeconds: number;
  /** Seals and opens refresh tokens under the store's refresh-token key. */
  readonly refreshTokenSealing: RefreshTokenSealing;
  readonly events: SecurityEvents;
  /** Device authorizations (RFC 8628), polled by the device code grant. */
  readonly devices: Pick<DeviceAuthorizations, 'poll'>;
  /** The upstream tokens token exchange may hand out (IDENTITY_PROVIDERS_FILE); none: no upstream targets. */
  readonly upstreamTokens?: UpstreamTokenSource | undefined;
  /** ID-JAGs of the providers trusted for them (IDENTITY_PROVIDERS_FILE); none: no JWT bearer grant. */
  readonly idJag?: Pick<JwtBearerDependencies, 'idJag' | 'providerConfig'> | undefined;
  /** The operator's marks on users (disabled), checked in memory by the grants that issue for a user; default: none. */
  readonly subjects?: SubjectChecks | undefined;
}

/**
 * The grant table the token endpoint dispatches through: one module per grant_type,
 * each handed only the services it uses.
 */
export type GrantTable = ReadonlyMap<string, Grant>;

export function grantTable(deps: GrantTableDependencies): GrantTable {
  const { store, accessTokens, idTokens, resources, users, refreshLifetimes, events } = deps;
  const subjects = deps.subjects ?? NO_SUBJECT_CHECKS;
  const refreshFamilies = new RefreshFamilies(store, refreshLifetimes, deps.grantIndexing, deps.refreshTokenSealing);
  const grants: Grant[] = [
    authorizationCodeGrant({
      codes: store,
      grants: store,
      refreshFamilies,
      accessTokens,
      idTokens,
      resources,
      users,
      revocationMarkSeconds: refreshLifetimes.absoluteSeconds,
      events,
      subjects,
    }),
    clientCredentialsGrant({ accessTokens, resources, events }),
    passwordGrant({
      signIn: deps.signIn,
      refreshFamilies,
      accessTokens,
      resources,
      users,
      clock: deps.clock,
      grantIndexing: deps.grantIndexing,
      events,
    }),
    refreshTokenGrant({
      refreshTokens: store,
      legacyRefreshTokens: store.legacyRefreshTokens,
      sealing: deps.refreshTokenSealing,
      accessTokens,
      idTokens,
      resources,
      users,
      idleSeconds: refreshLifetimes.idleSeconds,
      reuseGraceSeconds: deps.refreshReuseGraceSeconds,
      events,
      subjects,
    }),
    tokenExchangeGrant({
      accessTokens,
      denylist: store,
      grants: store,
      resources,
      users,
      clock: deps.clock,
      events,
      upstream: deps.upstreamTokens,
      subjects,
    }),
    deviceCodeGrant({ devices: deps.devices, refreshFamilies, families: store, accessTokens, idTokens, resources, events, subjects }),
    ...(deps.idJag
      ? [jwtBearerGrant({ ...deps.idJag, accessTokens, resources, users, grantIndexing: deps.grantIndexing, events, subjects })]
      : []),
  ];
  return new Map(grants.map((grant) => [grant.grantType, grant]));
}
