import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
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
