import type { ClientRegistry } from '../clients/registry.js';
import { nowSeconds, type Clock } from '../clock.js';
import { type GrantAdministrationDependencies, revokeGrantsOf } from '../grants/administration.js';
import type { EntryDocument, StoredEntry } from '../store/entry-types.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../users/password.js';
import { type User, UserRegistry } from '../users/registry.js';
import type { SubjectMarkDocument } from '../users/subject-status.js';
import type { RevokedGrants } from './clients.js';
import { entryNoun, type EntryWriter, VALIDATING, validated } from './entries.js';
import { AlreadyExists, FileEntryConflict, NotFound, PreconditionFailed, ValidationProblem } from './problems.js';

/**
 * Users at runtime: local users in the store (USERS_FILE's schema: username, the scrypt
 * `password_hash`, sub, claims, roles, disabled), addressed by their sub; and the `subject`
 * mark of any sub, a federated user's too: `disabled` and `sessions_revoked_at`. Disabling
 * a user ends everything at once, on every instance within a second: sign-in (password form,
 * password grant, upstream providers), refresh, the browser sessions already open (the mark
 * is read where the session cookie is), and their grants are revoked. A user of USERS_FILE is
 * read-only here.
 */

export interface AdminUsersDependencies {
  readonly writer: EntryWriter;
  /** The users served (file and store, merged). */
  readonly users: UserRegistry;
  /** A user's sub must not be a client_credentials client's id (RFC 9700 §4.15). */
  readonly clients: ClientRegistry;
  readonly grants: GrantAdministrationDependencies;
  readonly clock: Clock;
  /** How a conflict names USERS_FILE. */
  readonly file: string;
}

/** A user entry's document, as USERS_FILE holds one. */
export type UserDocument = Readonly<Record<string, unknown>>;

const NAMES = { noun: 'user', keyField: 'username' };
/** A well-formed hash, to validate the rest of a user before paying for scrypt. */
const PLACEHOLDER_HASH = `scrypt$16384$8$1$${'A'.repeat(22)}$${'A'.repeat(43)}`;

/** The length rule of `users add`, then scrypt. */
async function hashed(password: string): Promise<string> {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw new ValidationProblem('the password is too short', [
      { field: 'password', problem: `must have at least ${MIN_PASSWORD_LENGTH} characters` },
    ]);
  return hashPassword(password);
}
/** What a sub may be (USERS_FILE's rule, which a federated `fed_` sub meets too). */
const SUB = /^[\x21-\x7E]{1,255}$/;

export class AdminUsers {
  constructor(private readonly deps: AdminUsersDependencies) {}

  /** Creates a local user in the store; the id is its sub (the username unless it gives one). */
  async create(document: UserDocument): Promise<StoredEntry> {
    const user = this.valid(document);
    this.refuseFileEntry(user.sub, user.username);
    if (this.deps.users.get(user.username)) throw new AlreadyExists(`a user with the username "${user.username}" exists already`);
    return this.deps.writer.create('user', user.sub, document);
  }

  /** Replaces a store user (its sub cannot change); `expectedRev`: If-Match. */
  async replace(sub: string, document: UserDocument, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(sub);
    const user = this.valid(document);
    if (user.sub !== sub) throw new ValidationProblem('sub cannot change', [{ field: 'sub', problem: `must be "${sub}", the user's sub` }]);
    const holder = this.deps.users.get(user.username);
    if (holder && holder.sub !== sub) throw new AlreadyExists(`a user with the username "${user.username}" exists already`);
    this.refuseFileEntry(sub, user.username);
    return this.deps.writer.replace('user', sub, document, expectedRev);
  }

  /** Creates a local user with this password (write-only: the length rule of `users add`, then scrypt). */
  async createWithPassword(document: UserDocument, password: string): Promise<StoredEntry> {
    const user = this.valid({ ...document, password_hash: PLACEHOLDER_HASH });
    this.refuseFileEntry(user.sub, user.username);
    return this.create({ ...document, password_hash: await hashed(password) });
  }

  /** Sets a store user's password (write-only): the length rule of `users add`, then scrypt. */
  async setPassword(sub: string, password: string, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(sub);
    const hash = await hashed(password);
    const current = await this.deps.writer.current('user', sub);
    const document = { ...current.document, password_hash: hash };
    return this.deps.writer.replace('user', sub, document, expectedRev ?? current.rev);
  }

  /** Deletes a store user: their grants are revoked and their sessions end (a sub created again starts clean). */
  async delete(sub: string, expectedRev?: number): Promise<RevokedGrants> {
    this.refuseFileEntry(sub);
    await this.deps.writer.delete('user', sub, expectedRev);
    await this.mark(sub, (current) => ({ ...current, sessions_revoked_at: nowSeconds(this.deps.clock) }));
    return { revokedGrants: await this.revokeGrants(sub) };
  }

  /**
   * Disables (or enables) any sub: a store user's entry says so, and for every sub (a
   * federated one too) the subject mark; disabling also ends their sessions and revokes their
   * grants. A user of USERS_FILE is disabled in the file (`"disabled": true`).
   */
  async setDisabled(sub: string, disabled: boolean, expectedRev?: number): Promise<RevokedGrants> {
    this.refuseFileEntry(sub);
    if (!SUB.test(sub)) throw new NotFound(`"${sub}" is not a subject`);
    const now = nowSeconds(this.deps.clock);
    const user = await this.deps.writer.find('user', sub);
    // A stale If-Match writes nothing, the mark included.
    if (user && expectedRev !== undefined && user.rev !== expectedRev)
      throw new PreconditionFailed(`${entryNoun('user', sub)} is at rev ${user.rev}, not ${expectedRev}: read it again`, user.rev);
    await this.mark(sub, (current) => ({ ...current, disabled, ...(disabled ? { sessions_revoked_at: now } : {}) }));
    const current = await this.deps.writer.find('user', sub);
    if (current) {
      const { disabled: _was, ...rest } = current.document;
      await this.deps.writer.replace('user', sub, disabled ? { ...rest, disabled } : rest, expectedRev ?? current.rev);
    }
    return { revokedGrants: disabled ? await this.revokeGrants(sub) : 0 };
  }

  /** Ends every browser session of `sub` issued until now (any sub; they sign in again). */
  async revokeSessions(sub: string): Promise<void> {
    if (!SUB.test(sub)) throw new NotFound(`"${sub}" is not a subject`);
    await this.mark(sub, (current) => ({ ...current, sessions_revoked_at: nowSeconds(this.deps.clock) }));
  }

  private async mark(sub: string, change: (current: SubjectMarkDocument) => SubjectMarkDocument): Promise<void> {
    await this.deps.writer.put('subject', sub, (current) => change((current?.document ?? {}) as SubjectMarkDocument) as EntryDocument);
  }

  private valid(document: UserDocument): User {
    const user = validated(document, NAMES, () => UserRegistry.fromEntries([document], VALIDATING).all()[0]);
    if (!user) throw new ValidationProblem('the user is not valid', [{ field: '', problem: 'not a user' }]);
    if (this.deps.clients.get(user.sub)?.grantTypes.has('client_credentials')) {
      const problem = 'is the id of a client_credentials client, whose tokens carry it as their sub (RFC 9700 §4.15)';
      throw new ValidationProblem(`sub ${problem}`, [{ field: document.sub === undefined ? 'username' : 'sub', problem }]);
    }
    return user;
  }

  /** A user of USERS_FILE is changed there: the 409 problem naming the file. */
  refuseFileEntry(sub: string, username?: string): void {
    if (this.deps.users.heldByFile({ sub, username }))
      throw new FileEntryConflict(`${entryNoun('user', username ?? sub)} is declared in ${this.deps.file}: change it there`);
  }

  private async revokeGrants(sub: string): Promise<number> {
    return (await revokeGrantsOf({ sub }, this.deps.grants)).length;
  }
}
