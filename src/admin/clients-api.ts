import { randomBytes } from 'node:crypto';
import { isDynamicClientId } from '../clients/registered-client.js';
import type { ClientRegistry } from '../clients/registry.js';
import type { ClientRegistrationStore, StoredClientRegistration, StoredEntry } from '../store/types.js';
import { type AdminAction, changedFields } from './audit.js';
import {
  type ClientMetadata,
  clientDocument,
  clientMetadataOf,
  type ClientSource,
  type ClientView,
  clientView,
  parsedMetadata,
  registrationView,
  usesSecret,
} from './client-metadata.js';
import { type AdminClients, newClientSecret } from './clients.js';
import type { EntryWriter } from './entries.js';
import { documentTag, entryTag, fileEntryTag, type IfMatch, requiredRevision, requireIfMatch } from './etags.js';
import { mergePatch } from './merge-patch.js';
import { type Page, pageWithTail, type Placed } from './paging.js';
import { AdminProblem, NotFound } from './problems.js';

/**
 * The admin API's clients (src/routes/admin/clients.ts): RFC 7591 metadata in, views out,
 * over the clients service (src/admin/clients.ts, which validates with CLIENTS_FILE's
 * schema and writes the store). Lists merge the file's clients, the store's and the
 * dynamically registered ones; a registered client can be read and deleted, nothing more.
 */

export interface ClientsApiDependencies {
  readonly service: AdminClients;
  readonly writer: EntryWriter;
  /** File and store clients, merged (this instance's copy). */
  readonly registry: ClientRegistry;
  /** Dynamic registrations; undefined with DYNAMIC_CLIENT_REGISTRATION=off. */
  readonly registrations: ClientRegistrationStore | undefined;
}

export interface ClientQuery {
  readonly source?: ClientSource | undefined;
  readonly grant_type?: string | undefined;
  readonly q?: string | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** A client as answered, its ETag, and what the change wrote (names only). */
export interface ClientAnswer {
  readonly view: ClientView & { client_secret?: string; client_secret_expires_at?: 0 };
  readonly etag: string;
  readonly fields: readonly string[];
}

/** How many registrations a list reads at a time while it fills a page. */
const REGISTRATION_BATCH = 100;

const withSecret = (view: ClientView, secret: string | undefined) =>
  secret === undefined ? view : { ...view, client_secret: secret, client_secret_expires_at: 0 as const };

function matches(view: ClientView, query: ClientQuery): boolean {
  if (query.grant_type !== undefined && !view.grant_types.includes(query.grant_type as never)) return false;
  if (query.q === undefined) return true;
  const needle = query.q.toLowerCase();
  return [view.client_id, view.client_name ?? ''].some((text) => text.toLowerCase().includes(needle));
}

export class ClientsApi {
  constructor(private readonly deps: ClientsApiDependencies) {}

  /** File clients (file order), then the store's (creation order), then registrations (by id). */
  async list(query: ClientQuery): Promise<Page<ClientView>> {
    const wanted = (source: ClientSource) => query.source === undefined || query.source === source;
    const held: Placed<ClientView>[] = [];
    this.deps.registry.listed().forEach((entry, index) => {
      const source = entry.source === 'file' ? 'file' : 'admin';
      const view = clientView(entry.document, source, entry.stored);
      if (wanted(source) && matches(view, query))
        held.push({ position: entry.stored ? [1, entry.stored.sequence] : [0, index], item: view });
    });
    const registrations = wanted('registration') ? this.deps.registrations : undefined;
    return pageWithTail(
      held,
      query,
      registrations &&
        (async (after) => {
          const page = await registrations.listClientRegistrations({ after, limit: REGISTRATION_BATCH });
          const views = page.registrations.map(registrationView);
          // An id CLIENTS_FILE holds is never served from a registration.
          const shown = views.filter((view) => !this.deps.registry.held(view.client_id) && matches(view, query));
          return { items: shown.map((view) => ({ key: view.client_id, item: view })), next: page.next };
        }),
    );
  }

  async get(clientId: string): Promise<ClientAnswer> {
    const held = this.deps.registry.held(clientId);
    if (held?.stored)
      return { view: clientView(held.document, 'admin', held.stored), etag: entryTag('client', held.stored.rev), fields: [] };
    if (held) return { view: clientView(held.document, 'file'), etag: fileEntryTag(held.document), fields: [] };
    const registration = await this.registration(clientId);
    if (registration) return { view: registrationView(registration), etag: documentTag('registration', registration.record), fields: [] };
    throw new NotFound(`no client "${clientId}"`);
  }

  /** POST: a new client in the store; a client that authenticates with a secret gets one, shown in this answer only. */
  async create(body: ClientMetadata): Promise<ClientAnswer> {
    const clientId = body.client_id ?? `client-${randomBytes(12).toString('base64url')}`;
    this.refuseDynamicForm(clientId);
    const issued = usesSecret(body.token_endpoint_auth_method) ? newClientSecret() : undefined;
    const entry = await this.deps.service.create(clientDocument(body, clientId, issued?.hash));
    const fields = [...Object.keys(clientMetadataOf(entry.document)), ...(issued ? ['client_secret'] : [])];
    return this.answer(entry, fields, issued?.secret);
  }

  /** PUT: the metadata replaced as a whole (RFC 7592 §2.2's manner); the secret is kept while the method still uses one. */
  async replace(clientId: string, body: ClientMetadata, ifMatch: IfMatch | undefined): Promise<ClientAnswer> {
    await this.refuseRegistration(clientId);
    const rev = requiredRevision(ifMatch, 'client');
    const current = await this.current(clientId);
    return this.write(clientId, body, current, rev ?? current.rev, 'replaced');
  }

  /** PATCH: a JSON Merge Patch of the metadata; `{"disabled": true}` alone disables (its grants revoked). */
  async patch(clientId: string, patch: unknown, ifMatch: IfMatch | undefined): Promise<ClientAnswer & { action: AdminAction }> {
    await this.refuseRegistration(clientId);
    const current = await this.current(clientId);
    requireIfMatch(ifMatch, entryTag('client', current.rev));
    const before = clientMetadataOf(current.document);
    const body = parsedMetadata(mergePatch(before, patch), 'the patched client is not valid');
    const changed = changedFields(before, body);
    if (changed.length === 1 && changed[0] === 'disabled' && body.client_id === clientId) {
      const { entry } = await this.deps.service.setDisabled(clientId, body.disabled, current.rev);
      return { ...this.answer(entry, changed), action: body.disabled ? 'disabled' : 'enabled' };
    }
    return { ...(await this.write(clientId, body, current, current.rev, 'updated')), action: 'updated' };
  }

  /** DELETE: a store client or a dynamic registration; its grants are revoked. */
  async delete(clientId: string, ifMatch: IfMatch | undefined): Promise<{ readonly source: ClientSource }> {
    const registration = this.deps.registry.held(clientId) ? undefined : await this.registration(clientId);
    if (registration) {
      requireIfMatch(ifMatch, documentTag('registration', registration.record));
      await this.deps.service.deleteRegistration(clientId);
      return { source: 'registration' };
    }
    await this.deps.service.delete(clientId, requiredRevision(ifMatch, 'client'));
    return { source: 'admin' };
  }

  /** POST …/secret: a new secret (the old one stops at once), shown in this answer only. */
  async rotateSecret(clientId: string, ifMatch: IfMatch | undefined): Promise<ClientAnswer> {
    await this.refuseRegistration(clientId);
    const rev = requiredRevision(ifMatch, 'client');
    this.deps.service.refuseFileEntry(clientId);
    const current = await this.current(clientId);
    const method = String(current.document.token_endpoint_auth_method ?? 'client_secret_basic');
    if (!usesSecret(method)) {
      const problem = `is ${method}: the client has no secret`;
      throw new AdminProblem('validation', `token_endpoint_auth_method ${problem}`, {
        errors: [{ field: 'token_endpoint_auth_method', problem }],
      });
    }
    const issued = newClientSecret();
    const entry = await this.deps.service.replace(clientId, { ...current.document, client_secret_hash: issued.hash }, rev ?? current.rev);
    return this.answer(entry, ['client_secret'], issued.secret);
  }

  private async write(clientId: string, body: ClientMetadata, current: StoredEntry, rev: number, what: string): Promise<ClientAnswer> {
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw new AdminProblem('validation', `the ${what} client's client_id cannot change`, {
        errors: [{ field: 'client_id', problem: `must be "${clientId}", the client's id` }],
      });
    const kept = current.document.client_secret_hash;
    const issued = usesSecret(body.token_endpoint_auth_method) && typeof kept !== 'string' ? newClientSecret() : undefined;
    const hash = usesSecret(body.token_endpoint_auth_method) ? (issued?.hash ?? (kept as string)) : undefined;
    const entry = await this.deps.service.replace(clientId, clientDocument(body, clientId, hash), rev);
    const fields = changedFields(clientMetadataOf(current.document), clientMetadataOf(entry.document));
    return this.answer(entry, issued ? [...fields, 'client_secret'] : fields, issued?.secret);
  }

  private answer(entry: StoredEntry, fields: readonly string[], secret?: string): ClientAnswer {
    return { view: withSecret(clientView(entry.document, 'admin', entry), secret), etag: entryTag('client', entry.rev), fields };
  }

  /** The store's client (not the copy, which may be a second behind); a file client is a 409 first. */
  private async current(clientId: string): Promise<StoredEntry> {
    this.deps.service.refuseFileEntry(clientId);
    return this.deps.writer.current('client', clientId);
  }

  private async registration(clientId: string): Promise<StoredClientRegistration | undefined> {
    if (!this.deps.registrations || !isDynamicClientId(clientId)) return undefined;
    return this.deps.registrations.findClientRegistration(clientId);
  }

  private async refuseRegistration(clientId: string): Promise<void> {
    if (!this.deps.registry.held(clientId) && (await this.registration(clientId)))
      throw new AdminProblem(
        'conflict-registration',
        `client "${clientId}" is dynamically registered (RFC 7591): it manages itself (RFC 7592); here it can only be deleted`,
      );
  }

  private refuseDynamicForm(clientId: string): void {
    if (isDynamicClientId(clientId)) {
      const problem = 'has the form of the ids given to dynamically registered clients (dyn_…)';
      throw new AdminProblem('validation', `client_id ${problem}`, { errors: [{ field: 'client_id', problem }] });
    }
  }
}
