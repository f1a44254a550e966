import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../users/password.js';

/**
 * A local user's password through the admin API: the body of
 * `PUT /admin/v1/users/{sub}/password`, and the `password` member of `POST /admin/v1/users`.
 * Write-only: the server keeps its scrypt hash (`password_hash`) and never answers either.
 * The rule is that of `users add`: at least MIN_PASSWORD_LENGTH characters (code points).
 * `oauth2-token-service users add|set-password --url` sends this shape.
 */

export const PASSWORD_PROBLEM = `must have at least ${MIN_PASSWORD_LENGTH} characters`;

export const UserPassword = z
  .string()
  .max(1024)
  .refine((password) => [...password].length >= MIN_PASSWORD_LENGTH, PASSWORD_PROBLEM)
  .describe(`The new password (at least ${MIN_PASSWORD_LENGTH} characters); only its scrypt hash is kept`);

export const UserPasswordSchema = z.object({ password: UserPassword }).strict();

export type UserPasswordBody = z.input<typeof UserPasswordSchema>;
