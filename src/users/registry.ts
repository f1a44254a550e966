import { z } from 'zod';
import { readRegistryEntries } from '../registry/file.js';
import { isUsablePasswordHash, PASSWORD_HASH_PATTERN, verifyPassword } from './password.js';

/** Resource owners (RFC 6749 §1.1), as registered by the operator in USERS_FILE. */

const UserSchema = z
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
  })
  .strict();

export interface User {
  readonly username: string;
  /** The subject identifier put in `sub`; defaults to the username. */
  readonly sub: string;
}

interface Registered {
  readonly user: User;
  readonly passwordHash: string;
}

export class UsersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsersFileError';
  }
}

export class UserRegistry {
  private byUsername: ReadonlyMap<string, Registered>;

  protected constructor(registered: readonly Registered[]) {
    this.byUsername = new Map(registered.map((r) => [r.user.username, r]));
  }

  get(username: string): User | undefined {
    return this.byUsername.get(username)?.user;
  }

  all(): User[] {
    return [...this.byUsername.values()].map((r) => r.user);
  }

  /** Always runs exactly one password verification (a dummy one for unknown users). */
  async authenticate(username: string, password: string): Promise<User | undefined> {
    const registered = this.byUsername.get(username);
    const valid = await verifyPassword(password, registered?.passwordHash);
    return valid ? registered?.user : undefined;
  }

  /** Validates entries; throws UsersFileError naming the user and the field. */
  static fromEntries(entries: readonly unknown[], source = 'users'): UserRegistry {
    const registered: Registered[] = [];
    entries.forEach((entry, index) => {
      const username = (entry as { username?: unknown } | null)?.username;
      const name = typeof username === 'string' ? `user "${username}"` : `user #${index + 1}`;
      const parsed = UserSchema.safeParse(entry);
      if (!parsed.success) {
        const lines = parsed.error.issues.map((i) => `${source}: ${name}: ${i.path.join('.') || 'entry'}: ${i.message}`);
        throw new UsersFileError(lines.join('\n'));
      }
      const user = Object.freeze({ username: parsed.data.username, sub: parsed.data.sub ?? parsed.data.username });
      if (registered.some((r) => r.user.username === user.username))
        throw new UsersFileError(`${source}: ${name}: username: registered twice`);
      if (registered.some((r) => r.user.sub === user.sub))
        throw new UsersFileError(`${source}: ${name}: sub: already used by another user`);
      registered.push({ user, passwordHash: parsed.data.password_hash });
    });
    return new UserRegistry(registered);
  }

  static async load(file: string): Promise<UserRegistry> {
    return UserRegistry.fromEntries(await readRegistryEntries(file, 'users', (message) => new UsersFileError(message)), file);
  }

  /** Takes over the users of `next` in one assignment (ReloadableUsers). */
  protected adopt(next: UserRegistry): void {
    this.byUsername = next.byUsername;
  }
}

/**
 * The users the server hands to its routes and to PasswordSignIn: read like any
 * UserRegistry, replaced as a whole when USERS_FILE is reloaded (SIGHUP).
 */
export class ReloadableUsers extends UserRegistry {
  static holding(users: UserRegistry): ReloadableUsers {
    const reloadable = new ReloadableUsers([]);
    reloadable.adopt(users);
    return reloadable;
  }

  replace(next: UserRegistry): void {
    this.adopt(next);
  }
}
