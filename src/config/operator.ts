import type { SigningAlgorithm } from '@oauth2-token-service/verifier/algorithms';
import { ConfigError, EnvSchema, withoutBlanks } from './environment.js';

/** The subset the operator scripts need, read without requiring the server's full configuration. */
export interface OperatorDefaults {
  readonly keysDir: string;
  readonly jwksCacheTtl: number;
  readonly accessTokenTtl: number;
  /** ACCESS_TOKEN_SIGNING_ALG: the access-token chain `keys rotate` starts when missing. */
  readonly accessTokenSigningAlg: SigningAlgorithm | undefined;
  readonly clientsFile: string | undefined;
  readonly usersFile: string | undefined;
}

export function loadOperatorDefaults(env: NodeJS.ProcessEnv = process.env): OperatorDefaults {
  const schema = EnvSchema.pick({
    KEYS_DIR: true,
    JWKS_CACHE_TTL: true,
    ACCESS_TOKEN_TTL: true,
    ACCESS_TOKEN_SIGNING_ALG: true,
    CLIENTS_FILE: true,
    USERS_FILE: true,
  });
  const parsed = schema.safeParse(withoutBlanks(env));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  return Object.freeze({
    keysDir: parsed.data.KEYS_DIR,
    jwksCacheTtl: parsed.data.JWKS_CACHE_TTL,
    accessTokenTtl: parsed.data.ACCESS_TOKEN_TTL,
    accessTokenSigningAlg: parsed.data.ACCESS_TOKEN_SIGNING_ALG,
    clientsFile: parsed.data.CLIENTS_FILE,
    usersFile: parsed.data.USERS_FILE,
  });
}
