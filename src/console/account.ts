import { comparePositions, type Page, pageOf, type Position } from '../admin/paging.js';
import type { ClientDirectory } from '../clients/directory.js';
import type { SecurityEvents } from '../events/types.js';
import { type GrantAdministrationDependencies, liveGrants, revokeGrantById } from '../grants/administration.js';
import type { IndexedGrant, RefreshFamilyStore } from '../store/types.js';

/**
 * The account page's domain: the apps a person connected (each live grant of their grant
 * index, with its client as the directory knows it now), and taking one back. Revoking is
 * grant administration's (src/grants/administration.ts), by the user: the grant's refresh
 * tokens stop at once, introspection reports its access tokens inactive, the consent
 * remembered for that client is forgotten (the next authorization asks again), and the
 * audit log has a `grant.revoked` event naming the user as actor.
 */

export interface ConnectedApp {
  readonly grantId: string;
  readonly clientId: string;
  /** As the client is registered now; none when it is gone (its grant stays revocable). */
  readonly clientName?: string | undefined;
  readonly clientUri?: string | undefined;
  readonly scope: readonly string[];
  readonly resources: readonly string[];
  /** Seconds since the epoch; none for a grant made before the index kept it. */
  readonly grantedAt?: number | undefined;
  /** When the app last got tokens with it: its refresh token's last use (or first issue); none without a refresh token. */
  readonly lastUsedAt?: number | undefined;
  readonly expiresAt: number;
}

export interface AccountDependencies {
  readonly grants: GrantAdministrationDependencies;
  readonly families: Pick<RefreshFamilyStore, 'readRefreshFamily'>;
  readonly clients: ClientDirectory;
  readonly events: SecurityEvents;
}

/** The user's live grants, newest first, a page at a time (`limit`, `cursor` as the admin API pages). */
export async function connectedApps(
  sub: string,
  page: { readonly limit: number; readonly cursor?: string | undefined },
  deps: AccountDependencies,
): Promise<Page<ConnectedApp>> {
  // Newest first: by the second granted, then by expiry (milliseconds: the later of one second), then by id.
  const position = (grant: IndexedGrant): Position => [-(grant.details?.grantedAt ?? 0), -grant.expiresAt, grant.grantId];
  const grants = (await liveGrants({ sub }, deps.grants)).sort((a, b) => comparePositions(position(a), position(b)));
  const listed = pageOf(grants, position, page);
  const items = await Promise.all(
    listed.items.map(async (grant): Promise<ConnectedApp> => {
      const [client, family] = await Promise.all([deps.clients.find(grant.clientId), deps.families.readRefreshFamily(grant.grantId)]);
      return {
        grantId: grant.grantId,
        clientId: grant.clientId,
        clientName: client?.clientName,
        clientUri: client?.clientUri,
        scope: grant.details?.scope ?? [],
        resources: grant.details?.resources ?? [],
        grantedAt: grant.details?.grantedAt,
        lastUsedAt: family === undefined ? undefined : Math.floor(family.issuedAt / 1000),
        expiresAt: Math.ceil(grant.expiresAt / 1000),
      };
    }),
  );
  return listed.next === undefined ? { items } : { items, next: listed.next };
}

/** Revokes one of the user's own grants, and answers it; undefined when it is not a live grant of theirs (another's id changes nothing). */
export async function revokeConnectedApp(sub: string, grantId: string, deps: AccountDependencies): Promise<IndexedGrant | undefined> {
  const grant = (await liveGrants({ sub }, deps.grants)).find((candidate) => candidate.grantId === grantId);
  if (!grant) return undefined;
  await revokeGrantById(grant.grantId, deps.grants);
  await deps.grants.consents.forgetConsent(sub, grant.clientId);
  await deps.grants.index.unindexGrants([grant]);
  deps.events.emit({ event: 'grant.revoked', grantId, clientId: grant.clientId, sub, reason: 'user', actor: { sub } });
  return grant;
}
