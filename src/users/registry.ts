import { z } from 'zod';
import { readRegistryEntries } from '../registry-file.js';
import { PASSWORD_HASH_PATTERN, verifyPassword } from './password.js';

/** Resource owners, as registered by the operator in USERS_FILE. */

const UserSchema = z
  .object({
    username: z
      .string()
      .min(1)
      .max(128)
      .refine((u) => !/[\x00-\x1f\x7f]/.test(u) && u.trim() === u, 'must have no control characters and no surrounding spaces'),
    password_hash: z.string().regex(PASSWORD_HASH_PATTERN, 'must be the output of "npm run password:hash"'),
    sub: z.string().regex(/^[\x21-\x7E]{1,255}$/, 'must be 1-255 printable ASCII characters without spaces').optional(),
  })
  .strict();

export interface User {
  readonly username: string;
  /** The subject identifier put in `sub`; defaults to the username. */
  readonly sub: string;
}

interface StoredUser extends User {
  readonly passwordHash: string;
}

export class UsersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsersFileError';
  }
}

export class UserRegistry {
  private readonly byName: ReadonlyMap<string, StoredUser>;

  private constructor(users: readonly StoredUser[]) {
    this.byName = new Map(users.map((u) => [u.username, u]));
  }

  get(username: string): User | undefined {
    const user = this.byName.get(username);
    return user ? { username: user.username, sub: user.sub } : undefined;
  }

  all(): User[] {
    return [...this.byName.values()].map((u) => ({ username: u.username, sub: u.sub }));
  }

  /** Always runs exactly one password verification (a dummy one for unknown users). */
  async authenticate(username: string, password: string): Promise<User | undefined> {
    const user = this.byName.get(username);
    const valid = await verifyPassword(password, user?.passwordHash);
    return user && valid ? { username: user.username, sub: user.sub } : undefined;
  }

  /** Validates entries; throws UsersFileError naming the user and the field. */
  static fromEntries(entries: readonly unknown[], source = 'users'): UserRegistry {
    const users: StoredUser[] = [];
    entries.forEach((entry, index) => {
      const username = (entry as { username?: unknown } | null)?.username;
      const name = typeof username === 'string' ? `user "${username}"` : `user #${index + 1}`;
      const parsed = UserSchema.safeParse(entry);
      if (!parsed.success) {
        throw new UsersFileError(parsed.error.issues.map((i) => `${source}: ${name}: ${i.path.join('.') || 'entry'}: ${i.message}`).join('\n'));
      }
      const user: StoredUser = { username: parsed.data.username, sub: parsed.data.sub ?? parsed.data.username, passwordHash: parsed.data.password_hash };
      if (users.some((u) => u.username === user.username)) throw new UsersFileError(`${source}: ${name}: username: registered twice`);
      if (users.some((u) => u.sub === user.sub)) throw new UsersFileError(`${source}: ${name}: sub: already used by another user`);
      users.push(user);
    });
    return new UserRegistry(users);
  }

  static async load(file: string): Promise<UserRegistry> {
    return UserRegistry.fromEntries(await readRegistryEntries(file, 'users', (message) => new UsersFileError(message)), file);
  }
}
