import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { z } from 'zod';
import { isHttpsOrLocalUrl } from '../oauth/urls.js';
import { ConfigError, EnvSchema, problemLines, withoutBlanks } from './environment.js';

/** The subset the operator scripts need, read without requiring the server's full configuration. */
export interface OperatorDefaults {
  readonly keysDir: string;
  readonly jwksCacheTtl: number;
  readonly accessTokenTtl: number;
  /** ACCESS_TOKEN_SIGNING_ALG: the access-token chain `keys rotate` starts when missing. */
  readonly accessTokenSigningAlg: SigningAlgorithm | undefined;
  readonly clientsFile: string | undefined;
  readonly usersFile: string | undefined;
  /** The issuer the server would have (ISSUER, else http://localhost:PORT), for the URLs commands print. */
  readonly issuer: string;
  readonly identityProvidersFile: string | undefined;
  readonly identityProvidersAllowInsecure: boolean;
}

export function loadOperatorDefaults(env: NodeJS.ProcessEnv = process.env): OperatorDefaults {
  const schema = EnvSchema.pick({
    KEYS_DIR: true,
    JWKS_CACHE_TTL: true,
    ACCESS_TOKEN_TTL: true,
    ACCESS_TOKEN_SIGNING_ALG: true,
    CLIENTS_FILE: true,
    USERS_FILE: true,
    ISSUER: true,
    PORT: true,
    IDENTITY_PROVIDERS_FILE: true,
    IDENTITY_PROVIDERS_ALLOW_INSECURE: true,
  });
  const parsed = schema.safeParse(withoutBlanks(env));
  if (!parsed.success) throw new ConfigError(problemLines(parsed.error.issues));
  return Object.freeze({
    keysDir: parsed.data.KEYS_DIR,
    jwksCacheTtl: parsed.data.JWKS_CACHE_TTL,
    accessTokenTtl: parsed.data.ACCESS_TOKEN_TTL,
    accessTokenSigningAlg: parsed.data.ACCESS_TOKEN_SIGNING_ALG,
    clientsFile: parsed.data.CLIENTS_FILE,
    usersFile: parsed.data.USERS_FILE,
    issuer: (parsed.data.ISSUER ?? `http://localhost:${parsed.data.PORT}`).replace(/\/+$/, ''),
    identityProvidersFile: parsed.data.IDENTITY_PROVIDERS_FILE,
    identityProvidersAllowInsecure: parsed.data.IDENTITY_PROVIDERS_ALLOW_INSECURE,
  });
}

/** What the remote mode of the operator command reads (`--url`, `--token`, `--token-file` override it); the server never does. */
export interface AdminApiDefaults {
  /** ADMIN_URL: the server the admin API is on (its ISSUER). */
  readonly url: string | undefined;
  /** ADMIN_TOKEN: an access token for the admin API. */
  readonly token: string | undefined;
  /** ADMIN_TOKEN_FILE: a file holding it (safer: the environment of a process can be read by its owner). */
  readonly tokenFile: string | undefined;
}

export const ADMIN_URL_RULE = 'must be an https URL (http only on localhost, 127.0.0.1 or [::1]) without credentials, query or fragment';

/** Whether `value` may be the admin API's server: https, or http on this computer, as every URL we are given. */
export function isAdminApiUrl(value: string): boolean {
  return isHttpsOrLocalUrl(value) && !value.includes('?');
}

/** A bearer token is one token68 (RFC 6750 §2.1); this keeps a header injection or a pasted line break out. */
export const isBearerToken = (value: string): boolean => /^[\x21-\x7E]+$/.test(value);

const AdminApiSchema = z
  .object({
    ADMIN_URL: z.string().refine(isAdminApiUrl, `ADMIN_URL ${ADMIN_URL_RULE}`).optional(),
    // The message never repeats the value: it is a credential.
    ADMIN_TOKEN: z.string().refine(isBearerToken, 'ADMIN_TOKEN must be one access token: printable characters, no spaces').optional(),
    ADMIN_TOKEN_FILE: z.string().min(1).optional(),
  })
  .refine((env) => env.ADMIN_TOKEN === undefined || env.ADMIN_TOKEN_FILE === undefined, {
    message: 'ADMIN_TOKEN and ADMIN_TOKEN_FILE: set one or the other',
    path: ['ADMIN_TOKEN'],
  });

export function loadAdminApiDefaults(env: NodeJS.ProcessEnv = process.env): AdminApiDefaults {
  const parsed = AdminApiSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) throw new ConfigError(problemLines(parsed.error.issues));
  return Object.freeze({ url: parsed.data.ADMIN_URL, token: parsed.data.ADMIN_TOKEN, tokenFile: parsed.data.ADMIN_TOKEN_FILE });
}
