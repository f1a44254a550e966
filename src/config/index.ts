import { availableParallelism } from 'node:os';
import type { BrandConfig } from '../pages/brand.js';
import { brandConfig } from './brand.js';
import { type ClientAddressConfig, clientAddressConfig } from './client-address.js';
import { type DeviceConfig, deviceConfig } from './device.js';
import { type DpopConfig, dpopConfig } from './dpop.js';
import { type EntriesConfig, entriesConfig } from './entries.js';
import { type IdentityConfig, identityConfig } from './identity.js';
import { ConfigError, EnvSchema, type LOG_LEVELS, problemLines, withoutBlanks } from './environment.js';
import type { RedisSettings } from '../store/open-store.js';
import { redisProblems, redisSettings } from './redis.js';
import { type RegistrationConfig, registrationConfig, registrationProblems } from './registration.js';
import { type SigningConfig, signingConfig } from './signing.js';

export { ConfigError } from './environment.js';

/**
 * The only reader of process.env. Every variable is parsed once here; a bad value
 * yields one line per problem naming the variable, and the caller stops the process.
 */

/** Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): clients whose client_id is an https URL. */
export interface ClientIdMetadataConfig {
  readonly enabled: boolean;
  /** Development and tests only: fetch http:// URLs and loopback, private and other special-use addresses. */
  readonly allowInsecure: boolean;
  /** Bounds, in seconds, on how long a fetched document is used (its Cache-Control within them). */
  readonly minTtl: number;
  readonly maxTtl: number;
  /** Deadline of one fetch, DNS to last byte. */
  readonly timeoutMs: number;
  /** The most bytes of a document read. */
  readonly maxBytes: number;
}

export interface Config
  extends ClientAddressConfig, RegistrationConfig, DpopConfig, DeviceConfig, SigningConfig, IdentityConfig, EntriesConfig {
  readonly port: number;
  /** The listening address: 0.0.0.0 (every interface) unless HOST says otherwise; the dev entry defaults to 127.0.0.1. */
  readonly host: string;
  /**
   * Where GET /metrics (Prometheus) listens, on METRICS_HOST; undefined: no metrics at all. Equal to
   * `port`: served by the public listener, as the operator asked explicitly.
   */
  readonly metricsPort: number | undefined;
  /** 127.0.0.1 unless METRICS_HOST says otherwise: metrics are for the operator's network, not the public one. */
  readonly metricsHost: string;
  /** Issuer identifier without a trailing slash; endpoints hang below it. */
  readonly issuer: string;
  /** Whether ISSUER is set (else `issuer` is http://localhost:PORT, which production refuses). */
  readonly issuerConfigured: boolean;
  /** Where the store lives (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS); undefined: in memory. */
  readonly redis: RedisSettings | undefined;
  readonly redisKeyPrefix: string;
  readonly redisCommandTimeoutMs: number;
  readonly keysDir: string;
  /** Seconds between re-reads of KEYS_DIR; 0 means only at start and on SIGHUP. */
  readonly keysReloadInterval: number;
  readonly jwksCacheTtl: number;
  readonly clientsFile: string | undefined;
  readonly usersFile: string | undefined;
  /** JSON file of protected resources (RFC 8707 resource indicators); undefined: none. */
  readonly resourcesFile: string | undefined;
  readonly accessTokenTtl: number;
  /** Lifetime of an ID token, in seconds (OpenID Connect). */
  readonly idTokenTtl: number;
  readonly accessTokenAudience: string;
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** Lifetime of an authorization code in seconds (RFC 6749 §4.1.2: "maximum ... of 10 minutes"). */
  readonly authorizationCodeTtl: number;
  /** Where `response_type=code` puts its parameters when the request names no response_mode. */
  readonly codeResponseMode: 'query' | 'fragment';
  /** Absolute lifetime of a refresh token family, in seconds. */
  readonly refreshTokenTtl: number;
  /** A refresh token dies unused after this many seconds. */
  readonly refreshTokenIdleTtl: number;
  /** Seconds during which a retry of a just-rotated refresh token gets the same successor. */
  readonly refreshReuseGrace: number;
  /** Key of session cookies and signed forms; undefined means a random per-process key. */
  readonly sessionSecret: string | undefined;
  readonly sessionTtl: number;
  /** How long a user's consent to a client is remembered, in seconds; 0: never (the consent page every time). */
  readonly consentTtl: number;
  /** Failed logins per username within the window before further attempts are refused. */
  readonly loginMaxFailures: number;
  readonly loginMaxFailuresPerIp: number;
  readonly loginFailureWindow: number;
  /** Password verifications (scrypt) running at once, each on a password thread (src/users/password-threads.ts). */
  readonly passwordVerifyConcurrency: number;
  /** Verifications that may wait for a slot; past that, sign-ins are refused at once. */
  readonly passwordVerifyQueue: number;
  /** Seconds a client has to send a whole request (headers and body) before it gets 408. */
  readonly httpRequestTimeout: number;
  /** Seconds in-flight requests get after SIGTERM before the remaining connections are closed. */
  readonly shutdownTimeout: number;
  /** Server processes sharing PORT (node:cluster); 1 is a single process without a primary. */
  readonly workers: number;
  /** private_key_jwt: only the issuer identifier as `aud`, never the token endpoint URL (RFC 7523bis). */
  readonly clientAssertionStrictAudience: boolean;
  readonly clientIdMetadata: ClientIdMetadataConfig;
  /** BRAND_NAME, BRAND_LOGO_URL, BRAND_PRIMARY_COLOR: what the pages show of the operator. */
  readonly brand: BrandConfig;
}

/**
 * `defaults` are used for variables the environment leaves unset (the dev entry turns on
 * open registration that way).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, defaults: Readonly<Record<string, string>> = {}): Config {
  const parsed = EnvSchema.safeParse({ ...defaults, ...withoutBlanks(env) });
  if (!parsed.success) {
    throw new ConfigError(problemLines(parsed.error.issues));
  }
  const e = parsed.data;
  if (e.CLIENT_ID_METADATA_MIN_TTL > e.CLIENT_ID_METADATA_MAX_TTL) {
    throw new ConfigError(['CLIENT_ID_METADATA_MIN_TTL must not be greater than CLIENT_ID_METADATA_MAX_TTL']);
  }
  // A document's client is held to DYNAMIC_CLIENT_GRANTS; without the code flow no document could be used.
  if (e.CLIENT_ID_METADATA_DOCUMENTS && !e.DYNAMIC_CLIENT_GRANTS.includes('authorization_code')) {
    throw new ConfigError([
      'DYNAMIC_CLIENT_GRANTS must include authorization_code with CLIENT_ID_METADATA_DOCUMENTS=true: a metadata-document client uses the code flow',
    ]);
  }
  const redisConflicts = redisProblems(e);
  if (redisConflicts.length > 0) throw new ConfigError(redisConflicts);
  const registrationConflicts = registrationProblems(e);
  if (registrationConflicts.length > 0) throw new ConfigError(registrationConflicts);
  const workers = e.WORKERS === 'auto' ? availableParallelism() : e.WORKERS;
  // Each worker is a process of its own: state kept in memory would be one store per worker.
  if (workers > 1 && !e.REDIS_URL && !e.REDIS_CLUSTER_NODES && !e.REDIS_SENTINELS) {
    throw new ConfigError([
      `WORKERS=${e.WORKERS} (${workers} processes) needs a shared store: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (the in-memory store cannot be shared between processes)`,
    ]);
  }
  if (workers > 1 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError([
      `METRICS_PORT must differ from PORT with WORKERS=${e.WORKERS}: a scrape of PORT reaches one worker, while the primary serves the sum of all of them on METRICS_PORT`,
    ]);
  }
  const issuer = (e.ISSUER ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    issuer,
    issuerConfigured: e.ISSUER !== undefined,
    redis: redisSettings(e),
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    keysDir: e.KEYS_DIR,
    keysReloadInterval: e.KEYS_RELOAD_INTERVAL,
    jwksCacheTtl: e.JWKS_CACHE_TTL,
    clientsFile: e.CLIENTS_FILE,
    usersFile: e.USERS_FILE,
    resourcesFile: e.RESOURCES_FILE,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    idTokenTtl: e.ID_TOKEN_TTL,
    accessTokenAudience: e.ACCESS_TOKEN_AUDIENCE ?? issuer,
    logLevel: e.LOG_LEVEL,
    authorizationCodeTtl: e.AUTHORIZATION_CODE_TTL,
    codeResponseMode: e.AUTHORIZE_CODE_RESPONSE_MODE,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    refreshTokenIdleTtl: e.REFRESH_TOKEN_IDLE_TTL,
    refreshReuseGrace: e.REFRESH_REUSE_GRACE,
    sessionSecret: e.SESSION_SECRET,
    sessionTtl: e.SESSION_TTL,
    consentTtl: e.CONSENT_TTL,
    loginMaxFailures: e.LOGIN_MAX_FAILURES,
    loginMaxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
    loginFailureWindow: e.LOGIN_FAILURE_WINDOW,
    passwordVerifyConcurrency: e.PASSWORD_VERIFY_CONCURRENCY,
    passwordVerifyQueue: e.PASSWORD_VERIFY_QUEUE,
    httpRequestTimeout: e.HTTP_REQUEST_TIMEOUT,
    shutdownTimeout: e.SHUTDOWN_TIMEOUT,
    workers,
    clientAssertionStrictAudience: e.CLIENT_ASSERTION_STRICT_AUDIENCE,
    clientIdMetadata: Object.freeze({
      enabled: e.CLIENT_ID_METADATA_DOCUMENTS,
      allowInsecure: e.CLIENT_ID_METADATA_ALLOW_INSECURE,
      minTtl: e.CLIENT_ID_METADATA_MIN_TTL,
      maxTtl: e.CLIENT_ID_METADATA_MAX_TTL,
      timeoutMs: e.CLIENT_ID_METADATA_TIMEOUT_MS,
      maxBytes: e.CLIENT_ID_METADATA_MAX_BYTES,
    }),
    ...clientAddressConfig(e),
    ...registrationConfig(e),
    ...dpopConfig(e),
    ...deviceConfig(e),
    ...signingConfig(e, workers, availableParallelism()),
    ...identityConfig(e),
    ...entriesConfig(e),
    brand: brandConfig(e),
  });
}
