import { z } from 'zod';
import { BRAND_FIELDS } from './brand.js';
import { CLIENT_ADDRESS_FIELDS } from './client-address.js';
import { DEVICE_FIELDS } from './device.js';
import { DPOP_FIELDS } from './dpop.js';
import { ENTRIES_FIELDS } from './entries.js';
import { flag, integer } from './fields.js';
import { IDENTITY_FIELDS } from './identity.js';
import { REDIS_FIELDS } from './redis.js';
import { REGISTRATION_FIELDS } from './registration.js';
import { SIGNING_FIELDS } from './signing.js';

/**
 * The environment variables the server reads, each with its zod rule: a bad value is one
 * message naming the variable. src/config/index.ts turns the parsed values into Config.
 */

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

/** `auto` (one per available CPU) or a count; the most a host is expected to use. */
const MAX_WORKERS = 256;
const workerCount = z.string().transform((value, ctx) => {
  if (value === 'auto') return value;
  const count = /^\d+$/.test(value) ? Number(value) : 0;
  if (count >= 1 && count <= MAX_WORKERS) return count;
  ctx.addIssue({ code: 'custom', message: `WORKERS must be auto or a whole number from 1 to ${MAX_WORKERS}` });
  return z.NEVER;
});

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const EnvSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(3000),
  METRICS_PORT: integer('METRICS_PORT', 1, 65535).optional(),
  HOST: z.string().min(1).default('0.0.0.0'),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  ISSUER: issuerUrl.optional(),
  ...REDIS_FIELDS,
  KEYS_DIR: z.string().min(1).default('./keys'),
  KEYS_RELOAD_INTERVAL: integer('KEYS_RELOAD_INTERVAL', 0, 86_400, 'seconds').default(60),
  JWKS_CACHE_TTL: integer('JWKS_CACHE_TTL', 0, 86_400, 'seconds').default(300),
  CLIENTS_FILE: optionalPath,
  USERS_FILE: optionalPath,
  RESOURCES_FILE: optionalPath,
  ACCESS_TOKEN_TTL: integer('ACCESS_TOKEN_TTL', 1, 86_400, 'seconds').default(3600),
  ID_TOKEN_TTL: integer('ID_TOKEN_TTL', 60, 86_400, 'seconds').default(3600),
  ACCESS_TOKEN_AUDIENCE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  AUTHORIZATION_CODE_TTL: integer('AUTHORIZATION_CODE_TTL', 1, 600, 'seconds').default(60),
  AUTHORIZE_CODE_RESPONSE_MODE: z
    .enum(['query', 'fragment'], { message: 'AUTHORIZE_CODE_RESPONSE_MODE must be query or fragment' })
    .default('query'),
  REFRESH_TOKEN_TTL: integer('REFRESH_TOKEN_TTL', 60, 31_536_000, 'seconds').default(2_592_000),
  REFRESH_TOKEN_IDLE_TTL: integer('REFRESH_TOKEN_IDLE_TTL', 60, 31_536_000, 'seconds').default(1_209_600),
  REFRESH_REUSE_GRACE: integer('REFRESH_REUSE_GRACE', 0, 300, 'seconds').default(10),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters').optional(),
  SESSION_TTL: integer('SESSION_TTL', 60, 2_592_000, 'seconds').default(3600),
  CONSENT_TTL: integer('CONSENT_TTL', 0, 31_536_000, 'seconds').default(7_776_000),
  LOGIN_MAX_FAILURES: integer('LOGIN_MAX_FAILURES', 1, 1000).default(5),
  LOGIN_MAX_FAILURES_PER_IP: integer('LOGIN_MAX_FAILURES_PER_IP', 1, 100_000).default(20),
  LOGIN_FAILURE_WINDOW: integer('LOGIN_FAILURE_WINDOW', 1, 86_400, 'seconds').default(900),
  PASSWORD_VERIFY_CONCURRENCY: integer('PASSWORD_VERIFY_CONCURRENCY', 1, 256).default(4),
  PASSWORD_VERIFY_QUEUE: integer('PASSWORD_VERIFY_QUEUE', 0, 10_000).default(8),
  HTTP_REQUEST_TIMEOUT: integer('HTTP_REQUEST_TIMEOUT', 1, 3600, 'seconds').default(30),
  SHUTDOWN_TIMEOUT: integer('SHUTDOWN_TIMEOUT', 0, 600, 'seconds').default(10),
  WORKERS: workerCount.default(1),
  CLIENT_ASSERTION_STRICT_AUDIENCE: flag('CLIENT_ASSERTION_STRICT_AUDIENCE'),
  CLIENT_ID_METADATA_DOCUMENTS: flag('CLIENT_ID_METADATA_DOCUMENTS'),
  CLIENT_ID_METADATA_ALLOW_INSECURE: flag('CLIENT_ID_METADATA_ALLOW_INSECURE'),
  CLIENT_ID_METADATA_MIN_TTL: integer('CLIENT_ID_METADATA_MIN_TTL', 0, 86_400, 'seconds').default(60),
  CLIENT_ID_METADATA_MAX_TTL: integer('CLIENT_ID_METADATA_MAX_TTL', 0, 604_800, 'seconds').default(86_400),
  CLIENT_ID_METADATA_TIMEOUT_MS: integer('CLIENT_ID_METADATA_TIMEOUT_MS', 100, 30_000, 'milliseconds').default(5000),
  CLIENT_ID_METADATA_MAX_BYTES: integer('CLIENT_ID_METADATA_MAX_BYTES', 512, 1_048_576, 'bytes').default(5120),
  ...CLIENT_ADDRESS_FIELDS,
  ...REGISTRATION_FIELDS,
  ...DPOP_FIELDS,
  ...DEVICE_FIELDS,
  ...SIGNING_FIELDS,
  ...IDENTITY_FIELDS,
  ...ENTRIES_FIELDS,
  ...BRAND_FIELDS,
});

export type Environment = z.output<typeof EnvSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** One line per issue, naming its variable (once: most messages start with it already). */
export function problemLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const variable = String(issue.path[0] ?? 'environment');
    return issue.message.startsWith(variable) ? issue.message : `${variable}: ${issue.message}`;
  });
}

/** Empty variables count as unset, as shells and compose files often export them blank. */
export function withoutBlanks(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') out[name] = value;
  return out;
}
