import { z } from 'zod';
import type { UserPasswordBody } from '../admin/user-password.js';
import { MIN_PASSWORD_LENGTH } from '../users/password.js';
import { type User, type UserRole, USER_ROLES } from '../users/registry.js';
import { AdminApiError } from './admin-client.js';
import { type CliIo, listField, oneOf, readFirstLine, UsageError } from './command.js';
import { loadOperatorDefaults } from '../config/operator.js';
import { chosenFile, fileFailure } from './registry-files.js';

/**
 * What the `users` commands share, on the file and through the admin API: which file, the
 * line `users list` prints of a user, the password read from standard input, the roles.
 */

export const usersFile = (value: string | undefined, io: CliIo) => chosenFile(value, loadOperatorDefaults(io.env).usersFile, 'users');

export const RELOAD = 'Running servers apply the change on SIGHUP.';

/** Through the admin API a user is named by their sub, their id there. */
export const userPath = (sub: string) => `/users/${encodeURIComponent(sub)}`;

export interface UserLine {
  /** The username; a federated user has none: its sub stands first. */
  readonly username?: string | undefined;
  readonly sub: string;
  readonly claims: readonly string[];
  readonly roles: readonly string[];
  readonly disabled: boolean;
}

/** `alice  sub=u-1  claims=email,name  roles=admin  disabled`, and what the API adds (`source=`, `provider=`). */
export function describeUser(user: UserLine, extra: readonly string[] = []): string {
  return [
    listField(undefined, user.username ?? user.sub),
    listField('sub', user.sub),
    ...(user.claims.length > 0 ? [listField('claims', user.claims.join(','))] : []),
    ...(user.roles.length > 0 ? [listField('roles', user.roles.join(','))] : []),
    ...(user.disabled ? ['disabled'] : []),
    ...extra,
  ].join('  ');
}

export const lineOfUser = (user: User): UserLine => ({
  username: user.username,
  sub: user.sub,
  claims: Object.keys(user.claims),
  roles: user.roles,
  disabled: user.disabled === true,
});

/** A user as the admin API answers it (USERS_FILE's fields without the hash, and its source); other members are not shown. */
const RemoteUser = z
  .object({
    sub: z.string(),
    username: z.string().optional(),
    claims: z.record(z.string(), z.unknown()).default({}),
    roles: z.array(z.string()).default([]),
    disabled: z.boolean().default(false),
    source: z.string().optional(),
    provider: z.string().optional(),
  })
  .loose();

export function describeRemoteUser(item: unknown): string {
  const parsed = RemoteUser.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AdminApiError(`the admin API answered a user that is not one (${issue?.path.join('.')}: ${issue?.message})`);
  }
  const user = parsed.data;
  const extra = [
    ...(user.provider !== undefined ? [listField('provider', user.provider)] : []),
    ...(user.source !== undefined ? [listField('source', user.source)] : []),
  ];
  return describeUser({ ...user, claims: Object.keys(user.claims) }, extra);
}

/** The first line of standard input, kept out of the process list and the shell history; `users add`'s length rule. */
export async function passwordFromStdin(io: CliIo): Promise<UserPasswordBody> {
  const password = await readFirstLine(io.stdin);
  if (password === '') throw new UsageError('no password on standard input (pipe it in; see --help)');
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw fileFailure(`the password (read from standard input) must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  return { password };
}

/** `--role` (repeatable): the roles a user holds (`admin`: the admin API's scopes may be granted to them). */
export const ROLE_OPTION = { role: { type: 'string', multiple: true } } as const;

export function rolesOf(values: readonly string[] | undefined): UserRole[] {
  for (const role of values ?? []) oneOf('--role', role, USER_ROLES);
  return [...new Set(values ?? [])] as UserRole[];
}
