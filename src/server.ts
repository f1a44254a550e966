import type { FastifyInstance } from 'fastify';
import { buildServer, type ServerDependencies, serverEvents } from './app.js';
import type { ClientRegistry } from './clients/registry.js';
import { nowSeconds } from './clock.js';
import type { Config } from './config/index.js';
import { assertProductionReady, sessionSecretProblem } from './config/production.js';
import { useGracefulClose } from './http/graceful-close.js';
import { listenForMetrics } from './services/metrics-listener.js';
import { Keystore } from './keys/keystore.js';
import { reloadKeysReporting, reportKeysLoaded } from './keys/reload-events.js';
import { missingSigningAlgorithms } from './keys/signing-algorithms.js';
import { reportMetricsToPrimary } from './metrics/cluster.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import type { RegistrySources } from './clients/subjects.js';
import { logReloads, Registries, registryFilesOf } from './registries.js';
import { warnAboutIdentityProviders } from './identity/start-warnings.js';
import { warnAboutWorkloadTrusts } from './workloads/start-warnings.js';
import type { ResourceRegistry } from './resources/registry.js';
import { endpointsOf } from './endpoints.js';
import { Signer } from './session/signer.js';
import { storeOf } from './store/open-store.js';
import { EntrySync } from './entries/sync.js';
import { entriesAtStart } from './services/entries.js';
import { RedisStore } from './store/redis.js';
import type { UserRegistry } from './users/registry.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly address: string;
  /** The origin where GET /metrics answers, when METRICS_PORT is set. */
  readonly metricsAddress: string | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Clients to use instead of CLIENTS_FILE (the dev entry's demo client). */
  readonly clients?: ClientRegistry | undefined;
  /** Users to use instead of USERS_FILE (the dev entry's demo user). */
  readonly users?: UserRegistry | undefined;
  /** Resources to use instead of RESOURCES_FILE (the dev entry's demo resource). */
  readonly resources?: ResourceRegistry | undefined;
  /** How messages name the given `clients` and `users` (default: CLIENTS_FILE and USERS_FILE). */
  readonly sources?: Partial<RegistrySources>;
  /**
   * A worker of WORKERS>1: with METRICS_PORT, its series go to the primary, which serves
   * METRICS_PORT with the sum over the workers; the worker does not listen there itself.
   */
  readonly worker?: boolean;
  /** Instead of the logger LOG_LEVEL configures (tests capture its lines). */
  readonly logger?: ServerDependencies['logger'];
  /** Production (src/config/production.ts): refuse to start, and refuse a clients reload, that production cannot serve right. */
  readonly production?: boolean;
}

/**
 * Loads keys, clients, users and resources (throwing on anything unusable, or on a
 * client whose id is a user's subject), opens the store, listens, and wires reloads:
 * KEYS_DIR and the registry files (src/registries.ts) on SIGHUP, KEYS_DIR also every
 * KEYS_RELOAD_INTERVAL.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const registries = await Registries.open(registryFilesOf(config, [endpointsOf(config.issuer).url('admin')]), {
    clients: options.clients,
    users: options.users,
    resources: options.resources,
    sources: {
      clients: options.sources?.clients ?? config.clientsFile ?? 'CLIENTS_FILE',
      users: options.sources?.users ?? config.usersFile ?? 'USERS_FILE',
    },
    refuseClients: options.production ? (next) => sessionSecretProblem(config, next) : undefined,
  });
  // Before the keys: every problem of the settings in one go, then those of the files.
  if (options.production) assertProductionReady(config, registries.clients.all());
  const keystore = await Keystore.open(config.keysDir, nowSeconds(), { accessTokenAlg: config.accessTokenSigningAlg }).catch(
    (err: Error) => {
      err.message = `KEYS_DIR: ${err.message}`;
      throw err;
    },
  );
  const { clients, users, resources, providers, workloads } = registries;
  const signer = config.sessionSecret ? new Signer(config.sessionSecret) : Signer.withRandomSecret();
  const metrics = config.metricsPort === undefined ? undefined : new ServerMetrics({ keys: keystore, clock: Date.now });
  const store = storeOf(config, { observer: metrics });
  const entrySync = new EntrySync(store.entries, { intervalSeconds: config.entries.syncIntervalSeconds });
  const app = await buildServer(config, {
    entrySync,
    keystore,
    clients,
    users,
    resources,
    providers,
    workloads,
    store,
    signer,
    metrics,
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  const graceful = useGracefulClose(app);
  const events = serverEvents(app.log, metrics);
  reportKeysLoaded(keystore, events, 'start', nowSeconds());

  if (store instanceof RedisStore) {
    await store
      .connect()
      .catch((err: Error) =>
        app.log.error({ err: { message: err.message } }, 'redis unreachable at start; /readyz reports 503 until it answers'),
      );
  } else {
    app.log.warn(
      'none of REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS is set: using the in-memory store. State is single-instance and lost on restart.',
    );
  }
  const unusable = await entriesAtStart(entrySync, config);
  if (unusable) {
    await Promise.all([app.close(), entrySync.stop()]);
    await store.close();
    throw unusable;
  }
  // Clients may also come by themselves (dynamic registration, metadata documents): then an empty file is no mistake.
  const clientsMayArrive = config.dynamicClientRegistration !== 'off' || config.clientIdMetadata.enabled;
  if (clients.all().length === 0 && !clientsMayArrive)
    app.log.warn('no clients registered: set CLIENTS_FILE (see "oauth2-token-service clients add")');
  if (!config.sessionSecret) {
    app.log.warn(
      'SESSION_SECRET is not set: sign-in sessions use a random per-process key, lost on restart and not shared between instances',
    );
  }
  warnAboutIdentityProviders(config, providers, app.log);
  warnAboutWorkloadTrusts(config, workloads, resources, app.log);

  // It applies to the jwks_uri of private_key_jwt clients too, with or without metadata documents.
  if (config.clientIdMetadata.allowInsecure) {
    app.log.warn(
      'CLIENT_ID_METADATA_ALLOW_INSECURE=true: client metadata documents and client jwks_uri may be fetched over http and from loopback and private addresses; development and tests only, never in production',
    );
  }

  // A key file others can read: warned at start, then again only when the warnings change.
  let keyWarnings = '';
  const warnAboutKeys = (warnings: readonly string[]) => {
    if (warnings.join('\n') !== keyWarnings) for (const warning of warnings) app.log.warn({ keysDir: config.keysDir }, warning);
    keyWarnings = warnings.join('\n');
  };
  warnAboutKeys(keystore.warnings);
  // An algorithm the server needs (access tokens, ID tokens: RS256 and the clients' choices) that no key signs
  // with now: one line each, at start and after every reload (nothing is then signed with another algorithm).
  const warnAboutAlgorithms = () => {
    for (const { alg, message } of missingSigningAlgorithms(keystore, clients.all(), nowSeconds()))
      app.log.warn({ alg, keysDir: config.keysDir }, message);
  };
  warnAboutAlgorithms();
  const reloadKeys = async (reason: string) => {
    const result = await reloadKeysReporting(keystore, events, reason, nowSeconds);
    if (result.ok) {
      app.log.info({ keys: result.count, reason }, 'signing keys reloaded');
      warnAboutKeys(result.warnings);
    } else {
      app.log.error({ reason, err: { message: result.error.message } }, 'signing keys reload failed; keeping the previous keys');
    }
  };
  // Each registry reloads on its own; counts and reasons are logged, never an entry's content.
  const reloadRegistries = async (reason: string) => logReloads(await registries.reload(), reason, app.log);
  // Checked once both have reloaded: a client of the new CLIENTS_FILE may need another algorithm.
  const onHangup = () => void Promise.all([reloadKeys('SIGHUP'), reloadRegistries('SIGHUP')]).then(warnAboutAlgorithms);
  process.on('SIGHUP', onHangup);
  const reloader =
    config.keysReloadInterval > 0
      ? setInterval(() => void reloadKeys('interval').then(warnAboutAlgorithms), config.keysReloadInterval * 1000)
      : undefined;
  reloader?.unref();

  const unwire = () => {
    process.off('SIGHUP', onHangup);
    if (reloader) clearInterval(reloader);
  };
  let address: string;
  let metricsAddress: Awaited<ReturnType<typeof listenForMetrics>> | undefined;
  try {
    address = await app.listen({ port: config.port, host: config.host });
    metricsAddress = metrics && !options.worker ? await listenForMetrics(config, metrics, app) : undefined;
  } catch (err) {
    // A port in use: nothing of this server may stay behind (signal handler, timer, app, store).
    unwire();
    await Promise.all([app.close(), entrySync.stop()]);
    await store.close();
    throw err;
  }
  if (metrics && options.worker) reportMetricsToPrimary(metrics);
  app.log.info(
    {
      // Where it listens as configured (0.0.0.0: every interface), with the port it got.
      listen: `${config.host.includes(':') ? `[${config.host}]` : config.host}:${new URL(address).port || config.port}`,
      issuer: config.issuer,
      store: store.kind,
      keysDir: config.keysDir,
      dynamicClientRegistration: config.dynamicClientRegistration,
      ...(metricsAddress ? { metrics: `${metricsAddress.url}/metrics` } : {}),
    },
    'authorization server ready',
  );

  return {
    app,
    address,
    metricsAddress: metricsAddress?.url,
    async stop() {
      unwire();
      await Promise.all([graceful.close(config.shutdownTimeout * 1000), metricsAddress?.close()]);
      await entrySync.stop();
      await store.close();
    },
  };
}

/**
 * Stops gracefully on SIGTERM and SIGINT: no new connections, idle ones closed at once,
 * in-flight requests answered with Connection: close for up to SHUTDOWN_TIMEOUT seconds,
 * then the store closes and the process exits.
 */
export function stopOnSignals(server: RunningServer, exit: (code: number) => void): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    server.stop().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
