import type { FastifyInstance } from 'fastify';
import { type Clock, nowSeconds } from '../clock.js';
import { HOST_PATHS } from '../endpoints.js';
import type { Keystore } from '../keys/keystore.js';
import { type ClientSigningPreference, signingAlgorithmChecks } from '../keys/signing-algorithms.js';
import type { StoreLifecycle } from '../store/types.js';

export interface HealthOptions {
  readonly keystore: Keystore;
  /** The clients of CLIENTS_FILE: their id_token_signed_response_alg is an algorithm the server needs. */
  readonly clients: { all(): readonly ClientSigningPreference[] };
  readonly store: StoreLifecycle;
  readonly clock: Clock;
}

/**
 * /healthz: the process answers. /readyz: it can issue tokens now (a key of the access-token
 * chain signs, and the store acknowledges writes). `signing_algorithms` tells, for each
 * algorithm the server needs, whether a key of it signs: a missing ID-token algorithm is
 * reported there (and logged) but keeps the server in its load balancer.
 */
export async function healthRoutes(app: FastifyInstance, { keystore, clients, store, clock }: HealthOptions): Promise<void> {
  app.get(HOST_PATHS.health, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

  app.get(HOST_PATHS.readiness, async (_request, reply) => {
    const now = nowSeconds(clock);
    const keys = keystore.signingKeyAt(now) !== undefined;
    const storeWritable = await store.ping().then(
      () => true,
      () => false,
    );
    const ready = keys && storeWritable;
    const algorithms = signingAlgorithmChecks(keystore, clients.all(), now);
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: ready ? 'ready' : 'unavailable',
        checks: { signing_key: keys, store: storeWritable, signing_algorithms: algorithms },
      });
  });
}
