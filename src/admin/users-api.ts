import { z } from 'zod';
import { UserPassword, UserPasswordSchema } from './user-password.js';
import { isFederatedSubject } from '../identity/federated-subject.js';
import type { StoreEntryMeta } from '../registry/registry.js';
import type { FederatedUser, StoredEntry, UpstreamStore } from '../store/types.js';
import { USER_ROLES, type UserRegistry, UserSchema } from '../users/registry.js';
import { type AdminAction, changedFields } from './audit.js';
import type { EntryWriter } from './entries.js';
import { entryTag, fileEntryTag, type IfMatch, requiredRevision, requireIfMatch } from './etags.js';
import { mergePatch } from './merge-patch.js';
import { type Page, pageWithTail, type Placed } from './paging.js';
import { AdminProblem, NotFound, validationProblem } from './problems.js';
import type { AdminUsers } from './users.js';

/**
 * The admin API's users (src/routes/admin/users.ts): local users (USERS_FILE's, read-only
 * here, and the store's), and the federated users who signed in through a provider (listed
 * while their profile is kept), read-only but for `disabled` (the subject mark). Addressed by
 * `sub`; a password is write-only, and no answer carries its hash.
 */

const { password_hash: _hash, ...userFields } = UserSchema.shape;

export const USER_SOURCES = ['file', 'admin', 'federated'] as const;
export type UserSource = (typeof USER_SOURCES)[number];

/** POST: a local user and their password (write-only, the rule of `users add`: src/admin/user-password.ts). */
export const NewUserSchema = z.object({ ...userFields, password: UserPassword }).strict();
/** PUT …/password. */
export const PasswordSchema = UserPasswordSchema;
/** What a PATCH merged into a local user must be. */
const UserChangeSchema = z.object(userFields).strict();

export const UserViewSchema = z
  .object({
    sub: z.string(),
    username: z.string().optional().describe('A local user’s sign-in name'),
    claims: z.record(z.string(), z.unknown()).describe('Standard claims: a federated user’s as their provider last gave them'),
    roles: z.array(z.enum(USER_ROLES)).optional().describe('A local user’s (a federated user’s come from their provider’s rules)'),
    disabled: z.boolean(),
    source: z.enum(USER_SOURCES).describe('file: USERS_FILE (read-only here); admin: this API; federated: signed in through a provider'),
    created_at: z.number().int().optional(),
    updated_at: z.number().int().optional(),
    provider: z.string().optional().describe('The provider a federated user last signed in through'),
    last_sign_in_at: z.number().int().optional(),
  })
  .strict();

export type UserView = z.output<typeof UserViewSchema>;

export interface UsersApiDependencies {
  readonly service: AdminUsers;
  readonly writer: EntryWriter;
  readonly registry: UserRegistry;
  readonly federated: Pick<UpstreamStore, 'listFederatedUsers' | 'findFederatedUser' | 'findFederatedProfile'>;
}

export interface UserAnswer {
  readonly view: UserView;
  readonly etag: string;
  readonly fields: readonly string[];
}

const FEDERATED_BATCH = 100;

/**
 * The administrator acting (`actorSub`, a token's user) never disables, demotes or deletes
 * themselves: another administrator has to, so the last one cannot lock everyone out by a
 * slip, and a stolen session cannot quietly retire the account it came from.
 */
function refuseSelf(sub: string, actorSub: string | undefined, what: 'disable' | 'demote' | 'delete'): void {
  if (actorSub !== undefined && actorSub === sub) {
    const action = what === 'demote' ? 'remove the role admin from' : what;
    throw new AdminProblem('conflict-self', `you cannot ${action} your own account: another administrator has to`);
  }
}

const rolesOf = (document: { readonly roles?: unknown }): unknown[] => (Array.isArray(document.roles) ? document.roles : []);

function federatedConflict(sub: string, what: string): AdminProblem {
  return new AdminProblem('conflict-federated', `user "${sub}" signs in through an identity provider: ${what}`);
}

export class UsersApi {
  constructor(private readonly deps: UsersApiDependencies) {}

  /** Local users (the file's, then the store's by creation), then federated users by sub. */
  async list(query: {
    source?: UserSource | undefined;
    q?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<Page<UserView>> {
    const wanted = (source: UserSource) => query.source === undefined || query.source === source;
    const needle = query.q?.toLowerCase();
    const matches = (view: UserView) =>
      needle === undefined ||
      [view.sub, view.username, view.claims.email, view.claims.name, view.claims.preferred_username].some(
        (text) => typeof text === 'string' && text.toLowerCase().includes(needle),
      );
    const held: Placed<UserView>[] = [];
    this.deps.registry.listed().forEach((entry, index) => {
      const view = this.localView(entry.document, entry.stored);
      if (wanted(view.source) && matches(view)) held.push({ position: entry.stored ? [1, entry.stored.sequence] : [0, index], item: view });
    });
    return pageWithTail(
      held,
      query,
      wanted('federated')
        ? async (after) => {
            const page = await this.deps.federated.listFederatedUsers({ after, limit: FEDERATED_BATCH });
            const views = await Promise.all(page.users.map((user) => this.federatedView(user.sub, user)));
            return { items: views.filter(matches).map((view) => ({ key: view.sub, item: view })), next: page.next };
          }
        : undefined,
    );
  }

  async get(sub: string): Promise<UserAnswer> {
    const held = this.deps.registry.heldBySub(sub);
    if (held?.stored) return { view: this.localView(held.document, held.stored), etag: entryTag('user', held.stored.rev), fields: [] };
    if (held) return { view: this.localView(held.document), etag: fileEntryTag(held.document), fields: [] };
    if (!isFederatedSubject(sub)) throw new NotFound(`no user "${sub}"`);
    const user = await this.deps.federated.findFederatedUser(sub);
    if (!user && !this.deps.writer.copy('subject', sub)) throw new NotFound(`no user "${sub}"`);
    return { view: await this.federatedView(sub, user), etag: await this.markTag(sub), fields: [] };
  }

  async create(body: z.output<typeof NewUserSchema>): Promise<UserAnswer> {
    const { password: secret, ...document } = body;
    const entry = await this.deps.service.createWithPassword(document, secret);
    return this.answer(entry, [...Object.keys(document), 'password']);
  }

  /** PATCH: a merge patch of a local user (a federated user: of `disabled` alone); `disabled` ends sessions, revokes grants. */
  async patch(sub: string, patch: unknown, ifMatch: IfMatch | undefined, actorSub?: string): Promise<UserAnswer & { action: AdminAction }> {
    if (!this.deps.registry.heldBySub(sub) && isFederatedSubject(sub)) return this.patchFederated(sub, patch, ifMatch, actorSub);
    this.deps.service.refuseFileEntry(sub);
    const current = await this.deps.writer.current('user', sub);
    requireIfMatch(ifMatch, entryTag('user', current.rev));
    const { password_hash: hash, ...before } = current.document;
    const parsed = UserChangeSchema.safeParse(mergePatch(before, patch));
    if (!parsed.success) throw validationProblem(parsed.error.issues, 'the patched user is not valid');
    const changed = changedFields(before, parsed.data);
    const { disabled, ...rest } = parsed.data;
    if (disabled === true && before.disabled !== true) refuseSelf(sub, actorSub, 'disable');
    if (rolesOf(before).includes('admin') && !(rest.roles ?? []).includes('admin')) refuseSelf(sub, actorSub, 'demote');
    let entry = current;
    if (changed.some((field) => field !== 'disabled')) {
      const kept = before.disabled === true ? { disabled: true } : {};
      entry = await this.deps.service.replace(sub, { ...rest, ...kept, password_hash: hash }, current.rev);
    }
    if (!changed.includes('disabled')) return { ...this.answer(entry, changed), action: 'updated' };
    await this.deps.service.setDisabled(sub, disabled === true, entry.rev);
    const action = changed.length > 1 ? 'updated' : disabled === true ? 'disabled' : 'enabled';
    return { ...this.answer(await this.deps.writer.current('user', sub), changed), action };
  }

  async delete(sub: string, ifMatch: IfMatch | undefined, actorSub?: string): Promise<void> {
    if (!this.deps.registry.heldBySub(sub) && isFederatedSubject(sub)) throw federatedConflict(sub, 'it can only be disabled here');
    refuseSelf(sub, actorSub, 'delete');
    await this.deps.service.delete(sub, requiredRevision(ifMatch, 'user'));
  }

  /** PUT …/password: write-only; answers the user's new ETag. */
  async setPassword(sub: string, secret: string, ifMatch: IfMatch | undefined): Promise<string> {
    if (!this.deps.registry.heldBySub(sub) && isFederatedSubject(sub)) throw federatedConflict(sub, 'it has no password here');
    const entry = await this.deps.service.setPassword(sub, secret, requiredRevision(ifMatch, 'user'));
    return entryTag('user', entry.rev);
  }

  private async patchFederated(
    sub: string,
    patch: unknown,
    ifMatch: IfMatch | undefined,
    actorSub: string | undefined,
  ): Promise<UserAnswer & { action: AdminAction }> {
    const fields = typeof patch === 'object' && patch !== null && !Array.isArray(patch) ? Object.keys(patch) : ['(body)'];
    const others = fields.filter((field) => field !== 'disabled');
    if (others.length > 0) throw federatedConflict(sub, `only disabled can change here, not ${others.join(', ')}`);
    const value = (patch as { disabled?: unknown }).disabled;
    if (value !== undefined && value !== null && typeof value !== 'boolean')
      throw new AdminProblem('validation', 'disabled must be true or false', {
        errors: [{ field: 'disabled', problem: 'must be a boolean' }],
      });
    if (value === true) refuseSelf(sub, actorSub, 'disable');
    requireIfMatch(ifMatch, await this.markTag(sub));
    if (value !== undefined) await this.deps.service.setDisabled(sub, value === true);
    const action = value === undefined ? 'updated' : value === true ? 'disabled' : 'enabled';
    const view = await this.federatedView(sub, await this.deps.federated.findFederatedUser(sub));
    return { view, etag: await this.markTag(sub), fields: value === undefined ? [] : ['disabled'], action };
  }

  private answer(entry: StoredEntry, fields: readonly string[]): UserAnswer {
    return { view: this.localView(entry.document, entry), etag: entryTag('user', entry.rev), fields };
  }

  private markedDisabled(sub: string): boolean {
    return this.deps.writer.copy('subject', sub)?.document.disabled === true;
  }

  /** A federated user's tag: their subject mark's revision ("subject-0" before any). */
  private async markTag(sub: string): Promise<string> {
    return entryTag('subject', (await this.deps.writer.find('subject', sub))?.rev ?? 0);
  }

  private localView(document: Readonly<Record<string, unknown>>, stored?: StoreEntryMeta): UserView {
    const parsed = UserSchema.safeParse(document);
    const user = parsed.success ? parsed.data : { username: String(document.username), sub: undefined, claims: {}, roles: [] };
    const sub = user.sub ?? user.username;
    return {
      sub,
      username: user.username,
      claims: user.claims ?? {},
      roles: [...new Set(user.roles ?? [])],
      disabled: ('disabled' in user && user.disabled === true) || this.markedDisabled(sub),
      source: stored ? 'admin' : 'file',
      ...(stored ? { created_at: stored.createdAt, updated_at: stored.updatedAt } : {}),
    };
  }

  private async federatedView(sub: string, user: FederatedUser | undefined): Promise<UserView> {
    const profile = user ? await this.deps.federated.findFederatedProfile(sub) : undefined;
    return {
      sub,
      claims: { ...profile },
      disabled: this.markedDisabled(sub),
      source: 'federated',
      ...(user ? { provider: user.provider, last_sign_in_at: user.lastSignInAt } : {}),
    };
  }
}
