import { ClientRegistry } from '../clients/registry.js';
import { generateClientSecret, hashClientSecret } from '../clients/secret.js';
import { type GrantAdministrationDependencies, revokeGrantsOf } from '../grants/administration.js';
import type { EntryDocument, StoredEntry } from '../store/entry-types.js';
import type { ClientRegistrationStore } from '../store/types.js';
import type { UserRegistry } from '../users/registry.js';
import { entryNoun, type EntryWriter, VALIDATING, validated } from './entries.js';
import { AlreadyExists, FileEntryConflict, NotFound, ValidationProblem } from './problems.js';

/**
 * Clients at runtime: created, changed, disabled and deleted in the store, validated by
 * CLIENTS_FILE's schema (the one validation function of a client). Every instance serves the
 * change within a second (src/entries/); a client deleted or disabled has its grants revoked
 * (the grant index per client, as `grants revoke --client`). A client of CLIENTS_FILE is
 * read-only here; a dynamically registered one (RFC 7591) can only be deleted (cleanup).
 * Input is a parsed JSON object; the HTTP layer maps the problems thrown (src/admin/problems.ts).
 */

export interface AdminClientsDependencies {
  readonly writer: EntryWriter;
  /** The clients served (file and store, merged): an id of CLIENTS_FILE is never created in the store. */
  readonly clients: ClientRegistry;
  /** A client_credentials client's id must not be a user's sub (RFC 9700 §4.15). */
  readonly users: UserRegistry;
  /** Dynamically registered clients: their ids are taken, and they can be deleted. */
  readonly registrations?: ClientRegistrationStore | undefined;
  readonly grants: GrantAdministrationDependencies;
  /** How a conflict names CLIENTS_FILE (its path, or what gave the clients). */
  readonly file: string;
}

/** The grants revoked by a change (deleted or disabled client). */
export interface RevokedGrants {
  readonly revokedGrants: number;
}

const NAMES = { noun: 'client', keyField: 'client_id' };

/** A new client secret and the digest the client's document holds (`client_secret_hash`); the secret is shown once. */
export function newClientSecret(): { readonly secret: string; readonly hash: string } {
  const secret = generateClientSecret();
  return { secret, hash: hashClientSecret(secret) };
}

export class AdminClients {
  constructor(private readonly deps: AdminClientsDependencies) {}

  /** Creates a client in the store (201); its `client_id` must be free in the file, the registrations and the store. */
  async create(document: EntryDocument): Promise<StoredEntry> {
    const clientId = this.valid(document).clientId;
    this.refuseFileEntry(clientId);
    if (await this.deps.registrations?.findClientRegistration(clientId))
      throw new AlreadyExists(`${entryNoun('client', clientId)} is a dynamically registered client`);
    return this.deps.writer.create('client', clientId, document);
  }

  /** Replaces a store client's metadata (PUT); `expectedRev`: If-Match. A client replaced disabled has its grants revoked. */
  async replace(clientId: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(clientId);
    if (this.valid(document).clientId !== clientId)
      throw new ValidationProblem('client_id cannot change', [{ field: 'client_id', problem: `must be "${clientId}", the client's id` }]);
    const entry = await this.deps.writer.replace('client', clientId, document, expectedRev);
    if (document.disabled === true) await this.revokeGrants(clientId);
    return entry;
  }

  /** Disables (refused everywhere within a second, its grants revoked) or enables a store client. */
  async setDisabled(clientId: string, disabled: boolean, expectedRev?: number): Promise<{ entry: StoredEntry } & RevokedGrants> {
    this.refuseFileEntry(clientId);
    const current = await this.deps.writer.current('client', clientId);
    const { disabled: _was, ...rest } = current.document;
    const entry = await this.deps.writer.replace('client', clientId, disabled ? { ...rest, disabled } : rest, expectedRev ?? current.rev);
    return { entry, revokedGrants: disabled ? await this.revokeGrants(clientId) : 0 };
  }

  /** Deletes a store client: every instance refuses it within a second, and its grants are revoked. */
  async delete(clientId: string, expectedRev?: number): Promise<RevokedGrants> {
    this.refuseFileEntry(clientId);
    await this.deps.writer.delete('client', clientId, expectedRev);
    return { revokedGrants: await this.revokeGrants(clientId) };
  }

  /** Deletes a dynamically registered client (RFC 7591), and revokes its grants. */
  async deleteRegistration(clientId: string): Promise<RevokedGrants> {
    if (!(await this.deps.registrations?.deleteClientRegistration(clientId)))
      throw new NotFound(`no dynamically registered client "${clientId}"`);
    return { revokedGrants: await this.revokeGrants(clientId) };
  }

  private valid(document: EntryDocument): { clientId: string } {
    const client = validated(document, NAMES, () => ClientRegistry.fromMetadata([document], VALIDATING).listed()[0]?.value);
    if (!client) throw new ValidationProblem('the client is not valid', [{ field: '', problem: 'not a client' }]);
    const user = client.grantTypes.has('client_credentials') ? this.deps.users.bySub(client.clientId) : undefined;
    if (user) {
      const problem = `is the sub of a user: its client_credentials tokens would carry a user's sub (RFC 9700 §4.15)`;
      throw new ValidationProblem(`client_id ${problem}`, [{ field: 'client_id', problem }]);
    }
    return { clientId: client.clientId };
  }

  /** A client of CLIENTS_FILE is changed there: the 409 problem naming the file. */
  refuseFileEntry(clientId: string): void {
    if (this.deps.clients.claimedByFile(clientId))
      throw new FileEntryConflict(`${entryNoun('client', clientId)} is declared in ${this.deps.file}: change it there`);
  }

  private async revokeGrants(clientId: string): Promise<number> {
    return (await revokeGrantsOf({ clientId }, this.deps.grants)).length;
  }
}
