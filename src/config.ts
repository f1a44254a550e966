import { z } from 'zod';

/**
 * The only reader of process.env. Every variable is parsed once here; a bad value
 * yields one line per problem naming the variable, and the caller stops the process.
 */

const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const optionalPath = z.string().min(1).optional();

const issuerUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'ISSUER must be an absolute URL' });
    return;
  }
  // RFC 8414 §2: "The authorization server's issuer identifier, which is a URL that
  // uses the "https" scheme and has no query or fragment components."
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    ctx.addIssue({ code: 'custom', message: 'ISSUER must use https (or http for local development)' });
  }
  if (url.search !== '' || value.includes('?')) ctx.addIssue({ code: 'custom', message: 'ISSUER must not have a query' });
  if (url.hash !== '' || value.includes('#')) ctx.addIssue({ code: 'custom', message: 'ISSUER must not have a fragment' });
});

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const EnvSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  ISSUER: issuerUrl.optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
    .optional(),
  REDIS_KEY_PREFIX: z.string().min(1).max(64).default('oauth:'),
  REDIS_COMMAND_TIMEOUT_MS: integer('REDIS_COMMAND_TIMEOUT_MS', 50, 60_000).default(1000),
  KEYS_DIR: z.string().min(1).default('./keys'),
  KEYS_RELOAD_INTERVAL: integer('KEYS_RELOAD_INTERVAL', 0, 86_400).default(60),
  JWKS_CACHE_TTL: integer('JWKS_CACHE_TTL', 0, 86_400).default(300),
  CLIENTS_FILE: optionalPath,
  USERS_FILE: optionalPath,
  ACCESS_TOKEN_TTL: integer('ACCESS_TOKEN_TTL', 1, 86_400).default(3600),
  ACCESS_TOKEN_AUDIENCE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  TRUST_PROXY: z
    .enum(['true', 'false'], { message: 'TRUST_PROXY must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Issuer identifier without a trailing slash; endpoints hang below it. */
  readonly issuer: string;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly redisCommandTimeoutMs: number;
  readonly keysDir: string;
  /** Seconds between re-reads of KEYS_DIR; 0 means only at start and on SIGHUP. */
  readonly keysReloadInterval: number;
  readonly jwksCacheTtl: number;
  readonly clientsFile: string | undefined;
  readonly usersFile: string | undefined;
  readonly accessTokenTtl: number;
  readonly accessTokenAudience: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  readonly trustProxy: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** Empty variables count as unset, as shells and compose files often export them blank. */
function withoutBlanks(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') out[name] = value;
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? 'environment');
        return issue.message.startsWith(variable) ? issue.message : `${variable}: ${issue.message}`;
      }),
    );
  }
  const e = parsed.data;
  const issuer = (e.ISSUER ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    issuer,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    keysDir: e.KEYS_DIR,
    keysReloadInterval: e.KEYS_RELOAD_INTERVAL,
    jwksCacheTtl: e.JWKS_CACHE_TTL,
    clientsFile: e.CLIENTS_FILE,
    usersFile: e.USERS_FILE,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    accessTokenAudience: e.ACCESS_TOKEN_AUDIENCE ?? issuer,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
  });
}

/** The subset the operator scripts need, read without requiring the server's full configuration. */
export interface OperatorDefaults {
  readonly keysDir: string;
  readonly jwksCacheTtl: number;
  readonly accessTokenTtl: number;
  readonly clientsFile: string | undefined;
  readonly usersFile: string | undefined;
}

export function loadOperatorDefaults(env: NodeJS.ProcessEnv = process.env): OperatorDefaults {
  const schema = EnvSchema.pick({ KEYS_DIR: true, JWKS_CACHE_TTL: true, ACCESS_TOKEN_TTL: true, CLIENTS_FILE: true, USERS_FILE: true });
  const parsed = schema.safeParse(withoutBlanks(env));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  return Object.freeze({
    keysDir: parsed.data.KEYS_DIR,
    jwksCacheTtl: parsed.data.JWKS_CACHE_TTL,
    accessTokenTtl: parsed.data.ACCESS_TOKEN_TTL,
    clientsFile: parsed.data.CLIENTS_FILE,
    usersFile: parsed.data.USERS_FILE,
  });
}
