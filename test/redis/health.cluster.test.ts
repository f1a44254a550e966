import t from 'tap';
import { CLUSTER_NODE_TIMEOUT_MS } from '../../harness/redis-cluster.js';
import { nodeCommand, waitFor } from '../../harness/redis-nodes.js';
import { buildTestServer } from '../helpers/server.js';
import { clusterOfThisFile, clusterStore } from '../helpers/redis-stores.js';

const UNAVAILABLE = {
  status: 'unavailable',
  checks: { signing_key: true, store: false, signing_algorithms: { ES256: true, RS256: false } },
};

t.test('/readyz on a cluster follows the cluster, not only the slot its probe writes to', async (t) => {
  const cluster = await clusterOfThisFile();
  const opened = await clusterStore(t, { commandTimeoutMs: 500 });
  const { app } = await buildTestServer(t, { store: opened });
  const ready = () => app.inject({ url: '/readyz' });
  t.same((await ready()).json(), {
    status: 'ready',
    checks: { signing_key: true, store: true, signing_algorithms: { ES256: true, RS256: false } },
  });

  const probeOwner = await cluster.primaryOf(`${opened.keyPrefix}{readyz}:x`);
  const victim = (await cluster.primaries()).find((primary) => primary.port !== probeOwner.port);
  if (!victim) throw new Error('no other primary');
  const replicas = await cluster.replicasOf(victim);
  const killed = Date.now();
  await Promise.all([victim.kill(), ...replicas.map((replica) => replica.kill())]);

  let answer = await ready();
  await waitFor('/readyz to answer 503', async () => (answer = await ready()).statusCode === 503, 5 * CLUSTER_NODE_TIMEOUT_MS);
  t.same(answer.json(), UNAVAILABLE, `503 ${Date.now() - killed} ms after a primary and its replica died`);
  await waitFor(
    'cluster_state:fail',
    async () => /^cluster_state:fail/m.test(String(await nodeCommand(probeOwner.port, 'CLUSTER', 'INFO'))),
    10 * CLUSTER_NODE_TIMEOUT_MS,
  );
  t.same((await ready()).json(), UNAVAILABLE, 'cluster down (full coverage required, the default): 503');
  await t.rejects(
    opened.store.ping(),
    { name: 'StoreUnavailableError', message: /CLUSTERDOWN|no answer within 500 ms/ },
    'every write fails (the client retries CLUSTERDOWN until the timeout)',
  );

  // Nodes that need not cover every slot serve their own again: the probe's write succeeds,
  // yet a third of the grants cannot be served.
  for (const node of cluster.nodes.filter((node) => !node.exited())) {
    await nodeCommand(node.port, 'CONFIG', 'SET', 'cluster-require-full-coverage', 'no');
  }
  // Every living node, not only the probe's: under load one node can still report the
  // cluster down a moment after another reports it ok (CI saw that reason instead).
  const living = cluster.nodes.filter((node) => !node.exited());
  await waitFor(
    'cluster_state:ok with failed slots on every living node',
    async () => {
      const infos = await Promise.all(living.map((node) => nodeCommand(node.port, 'CLUSTER', 'INFO')));
      return infos.every((info) => /^cluster_state:ok/m.test(String(info)));
    },
    10 * CLUSTER_NODE_TIMEOUT_MS,
  );
  t.equal(
    await nodeCommand(probeOwner.port, 'SET', `${opened.keyPrefix}{readyz}:x`, '1', 'PX', '1000'),
    'OK',
    'the probe slot takes writes',
  );
  t.same((await ready()).json(), UNAVAILABLE, 'still 503: CLUSTER INFO reports failed slots');
  // The client learns the new state at its own pace (a primary it still asks may time out):
  // the probe never succeeds, and its reason settles on the failed slots.
  const reasons: string[] = [];
  await waitFor(
    'the store to report failed slots',
    async () => {
      const reason = await opened.store.ping().then(
        () => 'resolved',
        (error: Error) => `${error.name}: ${error.message}`,
      );
      reasons.push(reason);
      return /failed slots/.test(reason);
    },
    10 * CLUSTER_NODE_TIMEOUT_MS,
  );
  t.notOk(reasons.includes('resolved'), `the probe never succeeded (${reasons.length} probes)`);
  t.match(reasons.at(-1), /^StoreUnavailableError: .*failed slots/);
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, '/healthz stays 200');
});
