import type { FastifyInstance } from 'fastify';
import { type Clock, nowSeconds } from '../clock.js';
import { HOST_PATHS } from '../endpoints.js';
import type { Keystore } from '../keys/keystore.js';
import type { StoreLifecycle } from '../store/types.js';

export interface HealthOptions {
  readonly keystore: Keystore;
  readonly store: StoreLifecycle;
  readonly clock: Clock;
}

/** /healthz: the process answers. /readyz: it can issue tokens now (a signing key, and a store that acknowledges writes). */
export async function healthRoutes(app: FastifyInstance, { keystore, store, clock }: HealthOptions): Promise<void> {
  app.get(HOST_PATHS.health, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

  app.get(HOST_PATHS.readiness, async (_request, reply) => {
    const keys = keystore.signingKeyAt(nowSeconds(clock)) !== undefined;
    const storeWritable = await store.ping().then(
      () => true,
      () => false,
    );
    const ready = keys && storeWritable;
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ready' : 'unavailable', checks: { signing_key: keys, store: storeWritable } });
  });
}
