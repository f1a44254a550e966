import { z } from 'zod';
import { type EntryNaming, type HeldEntry, parseEntries, readEntries, Registry } from '../registry/registry.js';
import { frozenClaims, StandardClaimsSchema } from './claims.js';
import { isUsablePasswordHash, PASSWORD_HASH_PATTERN, verifyPassword } from './password.js';
import { FEDERATED_PREFIX, FEDERATED_PREFIX_RESERVED } from '../shared/federated-prefix.js';

/** Resource owners (RFC 6749 §1.1), as registered by the operator in USERS_FILE or through the admin API (the store). */

/** The roles a user may hold: `admin` lets them be granted the admin API's scopes. */
export const USER_ROLES = ['admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A local user: of USERS_FILE, of the store, of the admin API (one validation function). */
export const UserSchema = z
  .object({
    username: z
      .string()
      .min(1)
      .max(128)
      .refine((u) => !/\p{Cc}/u.test(u) && u.trim() === u, 'must have no control characters and no surrounding spaces'),
    password_hash: z
      .string()
      .regex(PASSWORD_HASH_PATTERN, { message: 'must be the output of "oauth2-token-service password hash"', abort: true })
      .refine(isUsablePasswordHash, 'scrypt parameters out of bounds (N a power of 2 up to 2^20, r 1-32, p 1-16, 128*N*r at most 1 GiB)'),
    sub: z
      .string()
      .regex(/^[\x21-\x7E]{1,255}$/, 'must be 1-255 printable ASCII characters without spaces')
      .optional(),
    /** Standard claims of OpenID Connect Core 1.0 §5.1 (claims.ts), released to clients by the scopes granted. */
    claims: StandardClaimsSchema.optional(),
    /** `admin`: the user may be granted the admin API's scopes (src/users/roles.ts). */
    roles: z.array(z.enum(USER_ROLES, { message: `must be one of ${USER_ROLES.join(', ')}` })).optional(),
    /** Refused at sign-in (password form, password grant), refresh, and in their sessions, while true. */
    disabled: z.boolean().optional(),
  })
  .strict();

export interface User {
  readonly username: string;
  /** The subject identifier put in `sub`; defaults to the username. */
  readonly sub: string;
  /** The user's standard claims (OpenID Connect Core 1.0 §5.1), frozen; empty when USERS_FILE gives none. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The user's roles (`admin`: the admin API's scopes, src/users/roles.ts); empty when none. */
  readonly roles: readonly UserRole[];
  /** Disabled by the operator: no sign-in, no refresh, no session (src/users/subject-status.ts). */
  readonly disabled?: true;
}

/** A user as held: the user and their scrypt hash. */
export interface RegisteredUser {
  readonly user: User;
  readonly passwordHash: string;
}

export class UsersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsersFileError';
  }
}

const USER_ENTRIES: EntryNaming = { member: 'users', noun: 'user', keyField: 'username' };

export class UserRegistry extends Registry<RegisteredUser> {
  #subs: { readonly from: object; readonly index: ReadonlyMap<string, User> } | undefined;

  protected constructor(registered: readonly RegisteredUser[], documents: readonly unknown[] = []) {
    super(registered.map((r, i) => [r.user.username, r, documents[i]] as const));
  }

  /** A user claims its username (the key) and its sub: a store user may share neither with a file user. */
  protected override claimsOf(key: string, value: RegisteredUser): readonly string[] {
    return [`username:${key}`, `sub:${value.user.sub}`];
  }

  get(username: string): User | undefined {
    return this.entry(username)?.user;
  }

  /** The user whose `sub` this is (userinfo, login_hint, the subject checks): subs are unique among the users served. */
  bySub(sub: string): User | undefined {
    const current = this.current;
    if (this.#subs?.from !== current)
      this.#subs = { from: current, index: new Map([...current.values()].map((h) => [h.value.user.sub, h.value.user])) };
    return this.#subs.index.get(sub);
  }

  /** Whether USERS_FILE has a user with this sub or this username: the store must have neither. */
  heldByFile(user: { readonly sub?: string | undefined; readonly username?: string | undefined }): boolean {
    return (
      (user.sub !== undefined && this.claimedByFile(`sub:${user.sub}`)) ||
      (user.username !== undefined && this.claimedByFile(`username:${user.username}`))
    );
  }

  /** The user with this sub as held, with its source and document. */
  heldBySub(sub: string): HeldEntry<RegisteredUser> | undefined {
    const user = this.bySub(sub);
    return user && this.held(user.username);
  }

  all(): User[] {
    return this.entries().map((r) => r.user);
  }

  /** Always runs exactly one password verification (a dummy one for unknown users). */
  async authenticate(username: string, password: string): Promise<User | undefined> {
    const registered = this.entry(username);
    const valid = await verifyPassword(password, registered?.passwordHash);
    return valid ? registered?.user : undefined;
  }

  /** Validates entries; throws UsersFileError with one line per problem, naming the user and the field. */
  static fromEntries(entries: readonly unknown[], source = 'users'): UserRegistry {
    const { parsed, problems } = parseEntries(entries, UserSchema, USER_ENTRIES, source);
    const registered: RegisteredUser[] = [];
    const documents: unknown[] = [];
    for (const { name, value, document } of parsed) {
      const user: User = Object.freeze({
        username: value.username,
        sub: value.sub ?? value.username,
        claims: frozenClaims(value.claims),
        roles: Object.freeze([...new Set(value.roles ?? [])]),
        ...(value.disabled ? { disabled: true as const } : {}),
      });
      if (registered.some((r) => r.user.username === user.username)) problems.push(`${source}: ${name}: username: registered twice`);
      else if (registered.some((r) => r.user.sub === user.sub)) problems.push(`${source}: ${name}: sub: already used by another user`);
      else if (user.sub.startsWith(FEDERATED_PREFIX))
        problems.push(
          `${source}: ${name}: ${value.sub === undefined ? 'username (the sub by default)' : 'sub'}: ${FEDERATED_PREFIX_RESERVED}`,
        );
      else {
        registered.push({ user, passwordHash: value.password_hash });
        documents.push(document);
      }
    }
    if (problems.length > 0) throw new UsersFileError(problems.join('\n'));
    return new UserRegistry(registered, documents);
  }

  static async load(file: string): Promise<UserRegistry> {
    return UserRegistry.fromEntries(await readEntries(file, USER_ENTRIES, (message) => new UsersFileError(message)), file);
  }
}
