import type { Cluster } from 'ioredis';

/**
 * Readiness of a cluster: the write probe lands on one slot, which says nothing of the
 * other primaries. Every primary the client knows must answer CLUSTER INFO with
 * `cluster_state:ok` and no failed slot: a primary that is down (before its replica is
 * promoted) or a cluster that lost a slot range cannot serve every grant.
 */
export async function clusterIsServing(cluster: Cluster): Promise<void> {
  const primaries = cluster.nodes('master');
  if (primaries.length === 0) throw new Error('no cluster primary is known');
  await Promise.all(
    primaries.map(async (node) => {
      const info = String(await node.cluster('INFO'));
      if (!/^cluster_state:ok\r?$/m.test(info)) throw new Error(`${nodeName(node)} reports the cluster down`);
      if (!/^cluster_slots_fail:0\r?$/m.test(info)) throw new Error(`${nodeName(node)} reports failed slots`);
    }),
  );
}

function nodeName(node: { options: { host?: string | undefined; port?: number | undefined } }): string {
  return `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
}
