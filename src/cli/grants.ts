import { type Clock, systemClock } from '../clock.js';
import { loadConfig } from '../config/index.js';
import { type GrantAdministrationDependencies, liveGrants, revokeGrantById, revokeGrantsOf } from '../grants/administration.js';
import { openStore } from '../store/open-store.js';
import type { GrantOwner, IndexedGrant, Store } from '../store/types.js';
import { isGrantId } from '../tokens/opaque.js';
import { commandAuditLog, operatorField } from './audit.js';
import { type CliIo, type Command, type CommandGroup, listField, parseCommandLine, UsageError } from './command.js';
import { remoteGrants } from './grants-remote.js';
import { adminApiOf, REMOTE_HELP, REMOTE_OPTIONS, REMOTE_SYNOPSIS } from './remote.js';

/**
 * `grants list|revoke`: the grants of a user or a client, in the shared store the servers
 * use (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS and REDIS_KEY_PREFIX, read as the
 * server reads them).
 */

const OWNER_OPTIONS = { sub: { type: 'string' }, client: { type: 'string' }, ...REMOTE_OPTIONS } as const;

const NOT_SHARED =
  "grants live in the server's store, and no Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS): the in-memory store exists only inside one server process, which this command cannot reach";

/** Opens the configured store for one command, closing it afterwards; refuses the in-memory store. */
async function withGrantStore<T>(io: CliIo, work: (deps: GrantAdministrationDependencies) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env ?? process.env);
  if (!config.redis) throw new Error(NOT_SHARED);
  const clock: Clock = io.clock ?? systemClock;
  const store: Store = await openStore(config, { clock });
  try {
    return await work({
      index: store.grantIndex,
      revocation: store,
      consents: store.consents,
      // As long as any grant can live: a refresh family, or a code and the access token it yields.
      revocationMarkSeconds: Math.max(config.refreshTokenTtl, config.authorizationCodeTtl + config.accessTokenTtl),
      clock,
    });
  } finally {
    await store.close();
  }
}

function ownerOf(values: { sub?: string | undefined; client?: string | undefined }): GrantOwner | undefined {
  if (values.sub !== undefined && values.client !== undefined) throw new UsageError('give --sub or --client, not both');
  if (values.sub !== undefined) return { sub: values.sub };
  if (values.client !== undefined) return { clientId: values.client };
  return undefined;
}

export function grantLine(grant: IndexedGrant): string {
  return [
    listField('grant', grant.grantId),
    listField('sub', grant.sub),
    listField('client', grant.clientId),
    listField('expires', new Date(grant.expiresAt).toISOString()),
  ].join(' ');
}

const list: Command = {
  name: 'list',
  remote: true,
  synopsis: `--sub SUB | --client CLIENT_ID [${REMOTE_SYNOPSIS}]`,
  summary: "list a user's or a client's live grants",
  description: `Prints one line per live grant of the user (--sub) or the client (--client): its id, user,
client and the time its last token expires (refresh family, or code and access token).
Revoked and expired grants are not listed. Grants of client_credentials are not listed:
they have no user and no refresh token. Needs the servers' Redis (REDIS_* variables).

${REMOTE_HELP}
There the servers' store is theirs: no REDIS_* variable is needed.`,
  async run(args, io) {
    const { values } = parseCommandLine(args, OWNER_OPTIONS);
    const owner = ownerOf(values);
    if (!owner) throw new UsageError('give --sub SUB or --client CLIENT_ID');
    const api = await adminApiOf(values, io);
    if (api) {
      for (const grant of await remoteGrants(api, owner)) io.stdout.write(`${grantLine(grant)}\n`);
      return;
    }
    const grants = await withGrantStore(io, (deps) => liveGrants(owner, deps));
    for (const grant of grants) io.stdout.write(`${grantLine(grant)}\n`);
  },
};

const revoke: Command = {
  name: 'revoke',
  remote: true,
  synopsis: `<grant-id> [${REMOTE_SYNOPSIS}] | --sub SUB | --client CLIENT_ID`,
  summary: 'revoke a grant, or every grant of a user or a client',
  description: `Revokes one grant by its id (the grant_id claim of its access tokens, the part of its
refresh token before the dot), or every live grant of a user (--sub) or a client
(--client). A revoked grant's refresh tokens stop working at once and introspection
reports its access tokens inactive; resource servers verifying JWTs offline accept them
until they expire (ACCESS_TOKEN_TTL). An id the store does not know (a typo, an expired
grant) fails (exit 1) and writes nothing. --sub also forgets the user's remembered
consent to every client; --client forgets every user's consent to that client, even
where no live grant is left. Prints one line per revoked grant, and writes one audit
line per revoked grant to stderr (event grant.revoked, reason administrator, as the
servers' audit log writes it). Needs the servers' Redis (REDIS_* variables).

${REMOTE_HELP}
There it revokes one grant by its id, and the server writes the audit events
(its actor: the token's client or user); to end every grant of a user or a client, disable
the user (users disable) or remove the client, or revoke each grant "grants list" names.`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine(args, OWNER_OPTIONS, ['grant-id'], 1);
    const owner = ownerOf(values);
    const grantId = positionals[0];
    if (grantId !== undefined && owner) throw new UsageError('give a grant id, --sub or --client, only one of them');
    if (grantId === undefined && !owner) throw new UsageError('give a grant id, --sub SUB or --client CLIENT_ID');
    const api = await adminApiOf(values, io);
    if (api && owner)
      throw new UsageError(
        `${'sub' in owner ? '--sub' : '--client'} needs the servers' Redis: through the admin API a grant is revoked by its id ("grants list" names them)`,
      );
    const audit = commandAuditLog(io);
    const by = operatorField();
    if (grantId !== undefined) {
      const shown = JSON.stringify(grantId);
      if (!isGrantId(grantId)) throw new Error(`no such grant: ${shown} is not a grant id (22 characters: A-Z, a-z, 0-9, - and _)`);
      if (api) {
        await api.call('DELETE', `/grants/${grantId}`);
        io.stdout.write(`revoked ${listField('grant', grantId)}\n`);
        return;
      }
      const revoked = await withGrantStore(io, (deps) => revokeGrantById(grantId, deps));
      if (!revoked) throw new Error(`no such grant: ${shown} (never issued, or expired)`);
      audit.emit({ event: 'grant.revoked', grantId, reason: 'administrator', ...by });
      io.stdout.write(`revoked ${listField('grant', grantId)}\n`);
      return;
    }
    const revoked = await withGrantStore(io, (deps) => revokeGrantsOf(owner as GrantOwner, deps));
    for (const grant of revoked) {
      audit.emit({
        event: 'grant.revoked',
        grantId: grant.grantId,
        reason: 'administrator',
        clientId: grant.clientId,
        sub: grant.sub,
        ...by,
      });
      io.stdout.write(`revoked ${grantLine(grant)}\n`);
    }
    io.stdout.write(`${revoked.length} grant${revoked.length === 1 ? '' : 's'} revoked\n`);
  },
};

export const grantsGroup: CommandGroup = {
  name: 'grants',
  summary: "the grants of users and clients in the servers' store (Redis, or --url)",
  commands: [list, revoke],
};
