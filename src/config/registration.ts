import { z } from 'zod';
import { DEVICE_CODE_GRANT } from '../clients/client.js';
import { DYNAMIC_GRANT_TYPES, type DynamicGrantType } from '../clients/registration-metadata.js';
import { integer } from './fields.js';

/**
 * The variables of dynamic client registration (RFC 7591), parsed by src/config.ts with the
 * others (it stays the only reader of process.env).
 */

export const REGISTRATION_MODES = ['off', 'open', 'token'] as const;

const NEVER_DYNAMIC: Record<string, string> = {
  password: 'DYNAMIC_CLIENT_GRANTS: password is never allowed for dynamically registered clients (RFC 9700 section 2.4)',
  implicit: 'DYNAMIC_CLIENT_GRANTS: implicit is never allowed for dynamically registered clients (RFC 9700 section 2.1.2)',
};

const dynamicGrants = z.string().transform((value, ctx) => {
  const grants = [...new Set(value.split(',').map((g) => g.trim()))];
  const refused = grants.find((g) => !(DYNAMIC_GRANT_TYPES as readonly string[]).includes(g));
  if (refused !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: NEVER_DYNAMIC[refused] ?? `DYNAMIC_CLIENT_GRANTS must be a comma-separated list of ${DYNAMIC_GRANT_TYPES.join(', ')}`,
    });
  }
  return grants as DynamicGrantType[];
});

/** Digests only (never a token itself), so the environment of a process yields nothing usable. */
const initialAccessTokenDigests = z.string().transform((value, ctx) => {
  const digests = value.split(',').map((d) => d.trim());
  if (!digests.every((d) => /^sha256:[A-Za-z0-9_-]{43}$/.test(d))) {
    // Never echo the value: it may be a token pasted by mistake.
    ctx.addIssue({
      code: 'custom',
      message:
        'REGISTRATION_INITIAL_ACCESS_TOKENS must be comma-separated digests (sha256:…) printed by "oauth2-token-service registration token"',
    });
  }
  return digests;
});

export const REGISTRATION_FIELDS = {
  DYNAMIC_CLIENT_REGISTRATION: z
    .enum(REGISTRATION_MODES, { message: `DYNAMIC_CLIENT_REGISTRATION must be one of ${REGISTRATION_MODES.join(', ')}` })
    .default('off'),
  REGISTRATION_INITIAL_ACCESS_TOKENS: initialAccessTokenDigests.optional(),
  DYNAMIC_CLIENT_GRANTS: dynamicGrants.default(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT]),
  DYNAMIC_CLIENT_TTL: integer('DYNAMIC_CLIENT_TTL', 3600, 31_536_000, 'seconds').default(2_592_000),
  REGISTRATION_RATE_LIMIT: integer('REGISTRATION_RATE_LIMIT', 1, 100_000).default(20),
  REGISTRATION_RATE_WINDOW: integer('REGISTRATION_RATE_WINDOW', 1, 86_400, 'seconds').default(3600),
};

type RegistrationVariables = z.output<z.ZodObject<typeof REGISTRATION_FIELDS>>;

export interface RegistrationConfig {
  /** Dynamic client registration (RFC 7591): off, open to anyone, or with an initial access token. */
  readonly dynamicClientRegistration: (typeof REGISTRATION_MODES)[number];
  /** `sha256:` digests of the initial access tokens accepted in `token` mode. */
  readonly registrationInitialAccessTokens: readonly string[];
  /** The grants a dynamically registered client may register. */
  readonly dynamicClientGrants: readonly DynamicGrantType[];
  /** A registered client unused for this many seconds is deleted. */
  readonly dynamicClientTtl: number;
  /** Registrations per client address in REGISTRATION_RATE_WINDOW seconds. */
  readonly registrationRateLimit: number;
  readonly registrationRateWindow: number;
}

/** The settings that hold only together, one message each. */
export function registrationProblems(e: RegistrationVariables): string[] {
  const problems: string[] = [];
  const tokens = e.REGISTRATION_INITIAL_ACCESS_TOKENS ?? [];
  if (e.DYNAMIC_CLIENT_REGISTRATION === 'token' && tokens.length === 0)
    problems.push('REGISTRATION_INITIAL_ACCESS_TOKENS: required with DYNAMIC_CLIENT_REGISTRATION=token');
  // Tokens with another mode would look like protection while registration is open (or off).
  if (e.DYNAMIC_CLIENT_REGISTRATION !== 'token' && tokens.length > 0)
    problems.push(
      `REGISTRATION_INITIAL_ACCESS_TOKENS: set, but DYNAMIC_CLIENT_REGISTRATION is ${e.DYNAMIC_CLIENT_REGISTRATION}: set DYNAMIC_CLIENT_REGISTRATION=token to require them`,
    );
  return problems;
}

export function registrationConfig(e: RegistrationVariables): RegistrationConfig {
  return {
    dynamicClientRegistration: e.DYNAMIC_CLIENT_REGISTRATION,
    registrationInitialAccessTokens: Object.freeze(e.REGISTRATION_INITIAL_ACCESS_TOKENS ?? []),
    dynamicClientGrants: Object.freeze(e.DYNAMIC_CLIENT_GRANTS),
    dynamicClientTtl: e.DYNAMIC_CLIENT_TTL,
    registrationRateLimit: e.REGISTRATION_RATE_LIMIT,
    registrationRateWindow: e.REGISTRATION_RATE_WINDOW,
  };
}
