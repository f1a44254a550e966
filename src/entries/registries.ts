import { ClientRegistry } from '../clients/registry.js';
import { type ProviderConfig, ProviderRegistry } from '../identity/providers.js';
import type { HeldEntry, Registry } from '../registry/registry.js';
import { ResourceRegistry } from '../resources/registry.js';
import type { EntryKind, StoredEntry } from '../store/entry-types.js';
import { type RegisteredUser, UserRegistry } from '../users/registry.js';
import { type SubjectMark, SubjectMarkSchema, type SubjectMarks } from '../users/subject-status.js';
import { WorkloadTrustRegistry } from '../workloads/trusts.js';
import type { SealedSecrets } from './sealed-secrets.js';
import type { EntrySync, EntrySyncLog } from './sync.js';

/**
 * The store's entries in the registries: each kind the sync follows is validated by the
 * schema of its file (one validation function per entity) and handed to its registry, which
 * merges it with the file's entries (src/registry/registry.ts). An entry that does not
 * validate (written by an older version, or by hand) is skipped with one log line, never a
 * crash; one shadowed by a file entry of the same id is logged once too. Validated entries
 * are kept by id and rev, so a change validates only what changed.
 */

export interface FollowedRegistries {
  readonly clients: ClientRegistry;
  readonly users: UserRegistry;
  readonly resources: ResourceRegistry;
  readonly providers?: ProviderRegistry | undefined;
  readonly workloads?: WorkloadTrustRegistry | undefined;
}

export interface FollowOptions {
  readonly log: EntrySyncLog;
  /** ENTRIES_ENCRYPTION_KEY: opens the client secrets of provider entries; undefined: provider entries are skipped. */
  readonly secrets: SealedSecrets | undefined;
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE: provider entries at http:// URLs. */
  readonly providersAllowHttp: boolean;
  /** WORKLOAD_TRUSTS_ALLOW_INSECURE: workload trust entries whose keys are at http:// URLs. */
  readonly workloadsAllowHttp?: boolean | undefined;
}

/** The field of a provider entry that holds its client secret, sealed (never `client_secret`). */
export const SEALED_CLIENT_SECRET = 'client_secret_sealed';

type Converted<E> = Omit<HeldEntry<E>, 'source'>;
type Conversion<E> = (entry: StoredEntry) => Converted<E>;

/** The one entry of a registry built from one document, checked to be registered under the entry's id. */
function only<E>(registry: Registry<E>, entry: StoredEntry, idOf: (held: HeldEntry<E>) => string, field: string): Converted<E> {
  const held = registry.listed()[0] as HeldEntry<E>;
  if (idOf(held) !== entry.id) throw new Error(`${field}: is not the entry's id`);
  return { key: held.key, value: held.value, document: entry.document, stored: entry };
}

/** Messages start `store: client "web": …` (the registry names the entry). */
const SOURCE = 'store';

function providerConversion(options: FollowOptions): Conversion<ProviderConfig> {
  return (entry) => {
    const { [SEALED_CLIENT_SECRET]: sealed, ...document } = entry.document;
    if (!options.secrets) throw new Error('its client secret is sealed, and ENTRIES_ENCRYPTION_KEY is not set');
    if (typeof sealed !== 'string') throw new Error(`${SEALED_CLIENT_SECRET}: missing`);
    const opened = options.secrets.open(entry.id, sealed);
    if ('problem' in opened) throw new Error(`client_secret: ${opened.problem}`);
    const registry = ProviderRegistry.fromEntries([{ ...document, client_secret: opened.secret }], SOURCE, {
      allowHttp: options.providersAllowHttp,
    });
    return only(registry, entry, (held) => held.key, 'id');
  };
}

/**
 * Feeds the registries from the sync, and returns the subject marks it keeps (the `subject`
 * entries) for SubjectStatus.
 */
export function followEntries(sync: EntrySync, registries: FollowedRegistries, options: FollowOptions): SubjectMarks {
  const { log } = options;
  const feed = <E>(kind: EntryKind, registry: Registry<E>, convert: Conversion<E>) => {
    const known = new Map<string, { rev: number; converted: Converted<E> | undefined }>();
    const shadowedBefore = new Set<string>();
    sync.follow(kind, (entries) => {
      const converted: Converted<E>[] = [];
      for (const entry of entries) {
        let held = known.get(entry.id);
        if (held?.rev !== entry.rev) {
          held = { rev: entry.rev, converted: undefined };
          try {
            held.converted = convert(entry);
          } catch (err) {
            log.warn(
              { kind, id: entry.id, rev: entry.rev, problems: (err as Error).message.split('\n') },
              'entries: a store entry does not validate, skipped',
            );
          }
          known.set(entry.id, held);
        }
        if (held.converted) converted.push(held.converted);
      }
      for (const id of known.keys()) if (!entries.some((e) => e.id === id)) known.delete(id);
      const shadowed = new Set(registry.replaceStoreEntries(converted));
      for (const key of shadowed)
        if (!shadowedBefore.has(key))
          log.warn({ kind, key }, 'entries: a store entry claims what a file entry holds; the file entry is served');
      shadowedBefore.clear();
      for (const key of shadowed) shadowedBefore.add(key);
    });
  };
  feed('client', registries.clients, (entry) =>
    only(ClientRegistry.fromMetadata([entry.document], SOURCE), entry, (held) => held.key, 'client_id'),
  );
  feed('resource', registries.resources, (entry) =>
    only(ResourceRegistry.fromEntries([entry.document], SOURCE), entry, (held) => held.key, 'resource'),
  );
  feed<RegisteredUser>('user', registries.users, (entry) =>
    only(UserRegistry.fromEntries([entry.document], SOURCE), entry, (held) => held.value.user.sub, 'sub'),
  );
  if (registries.providers) feed('provider', registries.providers, providerConversion(options));
  const allowHttp = options.workloadsAllowHttp === true;
  if (registries.workloads)
    feed('workload_trust', registries.workloads, (entry) =>
      only(WorkloadTrustRegistry.fromEntries([entry.document], SOURCE, { allowHttp }), entry, (held) => held.key, 'id'),
    );
  return subjectMarks(sync, log);
}

/** The `subject` entries as marks by sub; one that does not validate marks nothing (logged once). */
function subjectMarks(sync: EntrySync, log: EntrySyncLog): SubjectMarks {
  let marks: ReadonlyMap<string, SubjectMark> = new Map();
  const refused = new Set<string>();
  sync.follow('subject', (entries) => {
    const next = new Map<string, SubjectMark>();
    for (const entry of entries) {
      const parsed = SubjectMarkSchema.safeParse(entry.document);
      if (parsed.success) next.set(entry.id, { disabled: parsed.data.disabled, sessionsRevokedAt: parsed.data.sessions_revoked_at });
      else if (!refused.has(`${entry.id} ${entry.rev}`)) {
        refused.add(`${entry.id} ${entry.rev}`);
        log.warn({ kind: 'subject', id: entry.id, rev: entry.rev }, 'entries: a store entry does not validate, skipped');
      }
    }
    marks = next;
  });
  return { markOf: (sub) => marks.get(sub) };
}
