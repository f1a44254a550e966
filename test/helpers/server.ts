import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { buildServer, type ServerDependencies } from '../../src/app.js';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import type { SigningAlgorithm } from '../../src/keys/key-file.js';
import { Keystore } from '../../src/keys/keystore.js';
import type { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { Signer } from '../../src/session/signer.js';
import type { Store } from '../../src/store/types.js';
import { UserRegistry } from '../../src/users/registry.js';
import { WorkloadTrustRegistry } from '../../src/workloads/trusts.js';
import type { AdminServices } from '../../src/admin/index.js';
import { EntrySync } from '../../src/entries/sync.js';
import { adminServicesFor } from '../../src/services/entries.js';
import { until } from './sign-in.js';
import { keysDirWithSigningKey } from './keys.js';
import { memoryStore, type TestClock, type TestStore } from './stores.js';

export const ISSUER = 'https://as.example.com';

/** The browser session's and the CSRF cookie's names under ISSUER (https: the `__Host-` prefix). */
export const SESSION_COOKIE = '__Host-oauth_session';
export const CSRF_COOKIE = '__Host-oauth_csrf';

/** Fixed secrets of the test clients (tests only; never reused elsewhere). */
export const SECRETS = {
  service: 'service-secret-0123456789abcdefghijklmnopqrstuvwxyz',
  poster: 'poster-secret-0123456789abcdefghijklmnopqrstuvwxyz',
} as const;

export const TEST_CLIENTS = [
  {
    client_id: 'service',
    client_name: 'Service client',
    client_secret_hash: hashClientSecret(SECRETS.service),
    grant_types: ['client_credentials'],
    scope: 'read write admin',
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'poster',
    client_secret_hash: hashClientSecret(SECRETS.poster),
    grant_types: ['client_credentials'],
    scope: 'read',
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    client_id: 'webapp',
    client_secret_hash: hashClientSecret('webapp-secret'),
    redirect_uris: ['https://app.example.com/callback'],
    grant_types: ['authorization_code'],
    scope: 'read',
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'spa',
    redirect_uris: ['https://spa.example.com/cb'],
    grant_types: ['authorization_code'],
    scope: 'read',
    token_endpoint_auth_method: 'none',
  },
];

export interface TestServer {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly keystore: Keystore;
  readonly keysDir: string;
  readonly store: Store;
  /** The injected clock, in milliseconds, shared with the store; tests move it. */
  readonly clock: TestClock;
  /** Moves the clock forward and ages the store's keys by as much (see TestStore). */
  readonly advance: (seconds: number) => Promise<void>;
  /** With `metrics: true`: the series the app records into (no process metrics). */
  readonly metrics: ServerMetrics | undefined;
  /** The admin services over the app's store, registries and entry sync (as the admin API calls them). */
  readonly admin: AdminServices;
  /** The app's copy of the store's entries. */
  readonly entrySync: EntrySync;
  readonly registries: {
    readonly clients: ClientRegistry;
    readonly users: UserRegistry;
    readonly resources: ResourceRegistry;
    readonly providers?: ProviderRegistry;
    readonly workloads: WorkloadTrustRegistry;
  };
}

export interface TestServerOptions {
  readonly env?: Record<string, string>;
  readonly clients?: unknown[];
  /** Instead of `clients`: a registry built by the test (a reloadable one). */
  readonly clientRegistry?: ClientRegistry;
  readonly users?: UserRegistry;
  /** RESOURCES_FILE entries (none by default). */
  readonly resources?: unknown[];
  /** From test/helpers/stores.ts; a fresh memory store by default. */
  readonly store?: TestStore;
  readonly keysDir?: string;
  /** Without `keysDir`: the chains of the keys folder (default: ES256 alone). */
  readonly signingAlgorithms?: readonly SigningAlgorithm[];
  readonly logger?: unknown;
  /** Trust anchors and DNS for fetching client metadata documents. */
  readonly outboundFetch?: ServerDependencies['outboundFetch'];
  /** Record Prometheus series (as with METRICS_PORT), without Node's process metrics. */
  readonly metrics?: boolean;
  /**
   * IDENTITY_PROVIDERS_FILE entries (upstream identity providers); with them the server
   * allows http:// and loopback providers (IDENTITY_PROVIDERS_ALLOW_INSECURE=true) unless `env` says otherwise.
   */
  readonly providers?: unknown[];
  /** Instead of `providers`: a registry built by the test (a reloadable one). */
  readonly providerRegistry?: ProviderRegistry;
  /**
   * WORKLOAD_TRUSTS_FILE entries; with them the server fetches http:// and loopback issuers
   * (WORKLOAD_TRUSTS_ALLOW_INSECURE=true) unless `env` says otherwise.
   */
  readonly workloads?: unknown[];
}

export async function buildTestServer(t: Test, options: TestServerOptions = {}): Promise<TestServer> {
  const { store, clock, advance } = options.store ?? (await memoryStore(t));
  const keysDir =
    options.keysDir ??
    (await keysDirWithSigningKey(t, {
      now: Math.floor(clock.now / 1000) - 60,
      ...(options.signingAlgorithms ? { algs: options.signingAlgorithms } : {}),
    }));
  const withProviders = options.providers !== undefined || options.providerRegistry !== undefined;
  const config = loadConfig({
    ISSUER,
    KEYS_DIR: keysDir,
    LOG_LEVEL: 'silent',
    ...(withProviders ? { IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true' } : {}),
    ...(options.workloads ? { WORKLOAD_TRUSTS_ALLOW_INSECURE: 'true' } : {}),
    ...options.env,
  });
  const keystore = await Keystore.open(keysDir, Math.floor(clock.now / 1000), { accessTokenAlg: config.accessTokenSigningAlg });
  // prom-client is loaded only by the tests that measure (each test file is a process of its own).
  const metrics = options.metrics
    ? new (await import('../../src/metrics/server-metrics.js')).ServerMetrics({
        keys: keystore,
        clock: () => clock.now,
        processMetrics: false,
      })
    : undefined;
  const registries = {
    clients: options.clientRegistry ?? ClientRegistry.fromMetadata(options.clients ?? TEST_CLIENTS),
    users: options.users ?? UserRegistry.fromEntries([]),
    resources: ResourceRegistry.fromEntries(options.resources ?? []),
    ...(withProviders
      ? {
          providers:
            options.providerRegistry ??
            ProviderRegistry.fromEntries(options.providers ?? [], 'providers', { allowHttp: config.identityProviders.allowInsecure }),
        }
      : {}),
    workloads: WorkloadTrustRegistry.fromEntries(options.workloads ?? [], 'trusts', { allowHttp: config.workloadTrusts.allowInsecure }),
  };
  const entrySync = new EntrySync(store.entries, { intervalSeconds: config.entries.syncIntervalSeconds });
  t.teardown(() => entrySync.stop());
  const app = await buildServer(config, {
    metrics,
    keystore,
    ...registries,
    entrySync,
    store,
    signer: new Signer('test-session-secret-0123456789abcdef'),
    clock: () => clock.now,
    logger: (options.logger ?? false) as false,
    ...(options.outboundFetch ? { outboundFetch: options.outboundFetch } : {}),
  });
  t.teardown(() => app.close());
  // Followed from here on: the subscription is in place and its snapshot taken (a test counting commands sees none of it).
  await until(() => entrySync.subscribed, 'the entries subscription');
  await entrySync.idle();
  const admin = adminServicesFor(config, { store, sync: entrySync, registries, clock: () => clock.now });
  return { app, config, keystore, keysDir, store, clock, advance, metrics, admin, entrySync, registries };
}

export function basic(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

export function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** The headers RFC 6749 §5.1 requires on every token endpoint response. */
export const NO_STORE_JSON = {
  'content-type': 'application/json;charset=UTF-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
} as const;
