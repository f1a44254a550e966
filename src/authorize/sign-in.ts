import type { PasswordSignIn } from '../users/sign-in.js';

/**
 * The sign-in step of an authorization request: the ways the login page offers, and an
 * attempt with the password form, through the sign-in limits shared with the password grant
 * (users/sign-in.ts). Beside it, a button per upstream identity provider (upstream-sign-in.ts).
 */

export type SignInMethod =
  | { readonly kind: 'password' }
  /** "Continue with {name}": a provider of IDENTITY_PROVIDERS_FILE. */
  | { readonly kind: 'upstream'; readonly id: string; readonly name: string; readonly origin: string };

/** Why an attempt sent the login page back. The message never says which of username or password was wrong. */
export type SignInProblem =
  /** Unknown username or wrong password. */
  | { readonly reason: 'wrong_credentials' }
  /** Past a limit (failures), while other attempts are still being checked, or with every verification slot taken. */
  | { readonly reason: 'throttled' | 'checks_in_flight' | 'busy'; readonly retryAfterSeconds: number };

/** A sign-in that succeeded names the user and how they signed in (RFC 8176 `amr` values). */
export type SignInAttempt =
  { readonly ok: true; readonly sub: string; readonly amr: readonly string[] } | { readonly ok: false; readonly problem: SignInProblem };

export interface PasswordCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * The ways to sign in the login page shows: the password form when there are local users
 * (or no provider at all), then one button per upstream provider, in the file's order.
 */
export function signInMethods(
  localUsers: boolean,
  providers: readonly { id: string; name: string; origin: string }[],
): readonly SignInMethod[] {
  return [
    ...(localUsers || providers.length === 0 ? [{ kind: 'password' } as const] : []),
    ...providers.map(({ id, name, origin }) => ({ kind: 'upstream', id, name, origin }) as const),
  ];
}

/** A sign-in with the password form; a store failure rejects (nobody is signed in). */
export async function signInWithPassword(
  signIn: PasswordSignIn,
  { username, password }: PasswordCredentials,
  clientAddress: string,
): Promise<SignInAttempt> {
  const outcome = await signIn.attempt(username, password, clientAddress, 'login_page');
  switch (outcome.outcome) {
    case 'signed_in':
      // RFC 8176 §2: "pwd: Password-based authentication".
      return { ok: true, sub: outcome.user.sub, amr: ['pwd'] };
    case 'wrong_credentials':
      return { ok: false, problem: { reason: 'wrong_credentials' } };
    default:
      return { ok: false, problem: { reason: outcome.outcome, retryAfterSeconds: outcome.retryAfterSeconds } };
  }
}
