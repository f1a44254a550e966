import t from 'tap';
import { CLUSTER_NODE_TIMEOUT_MS } from '../helpers/redis-cluster.js';
import { nodeCommand, waitFor } from '../helpers/redis-nodes.js';
import { buildTestServer } from '../helpers/server.js';
import { clusterOfThisFile, clusterStore } from '../helpers/stores.js';

const UNAVAILABLE = { status: 'unavailable', checks: { signing_key: true, store: false } };

t.test('/readyz on a cluster follows the cluster, not only the slot its probe writes to', async (t) => {
  const cluster = await clusterOfThisFile();
  const opened = await clusterStore(t, { commandTimeoutMs: 500 });
  const { app } = await buildTestServer(t, { store: opened });
  const ready = () => app.inject({ url: '/readyz' });
  t.same((await ready()).json(), { status: 'ready', checks: { signing_key: true, store: true } });

  // Nodes keep serving their own slots while others are lost: the probe's write succeeds.
  for (const node of cluster.nodes) await nodeCommand(node.port, 'CONFIG', 'SET', 'cluster-require-full-coverage', 'no');
  const probeOwner = await cluster.primaryOf(`${opened.keyPrefix}{readyz}:x`);
  const victim = (await cluster.primaries()).find((primary) => primary.port !== probeOwner.port);
  if (!victim) throw new Error('no other primary');
  const replicas = await cluster.replicasOf(victim);
  const killed = Date.now();
  await Promise.all([victim.kill(), ...replicas.map((replica) => replica.kill())]);

  let answer = await ready();
  await waitFor('/readyz to answer 503', async () => (answer = await ready()).statusCode === 503, 5 * CLUSTER_NODE_TIMEOUT_MS);
  t.same(answer.json(), UNAVAILABLE, `503 ${Date.now() - killed} ms after a primary and its replica died`);
  t.equal(
    await nodeCommand(probeOwner.port, 'SET', `${opened.keyPrefix}{readyz}:x`, '1', 'PX', '1000'),
    'OK',
    'the probe slot still takes writes',
  );

  await waitFor(
    'the cluster to mark the slots failed',
    async () => /^cluster_slots_fail:[1-9]/m.test(String(await nodeCommand(probeOwner.port, 'CLUSTER', 'INFO'))),
    10 * CLUSTER_NODE_TIMEOUT_MS,
  );
  t.same((await ready()).json(), UNAVAILABLE, 'still 503 once the cluster agrees: a third of the grants cannot be served');
  await t.rejects(opened.store.ping(), { name: 'StoreUnavailableError', message: /failed slots|cluster down/ });

  // With full coverage required (the default), the cluster refuses every command.
  for (const node of cluster.nodes.filter((node) => !node.exited())) {
    await nodeCommand(node.port, 'CONFIG', 'SET', 'cluster-require-full-coverage', 'yes');
  }
  await waitFor(
    'cluster_state:fail',
    async () => /^cluster_state:fail/m.test(String(await nodeCommand(probeOwner.port, 'CLUSTER', 'INFO'))),
    5 * CLUSTER_NODE_TIMEOUT_MS,
  );
  t.same((await ready()).json(), UNAVAILABLE, 'cluster down: 503');
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, '/healthz stays 200');
});
