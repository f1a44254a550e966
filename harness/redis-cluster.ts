import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RedisAddress, RedisTopology } from '../src/store/redis-connection.js';
import { freePort } from './ports.js';
import type { Teardown } from './process.js';
import { onFreePorts, QUIET_NODE, type RedisProcess, startRedisProcess } from './redis.js';
import { inSync, nodeCommand, waitFor } from './redis-nodes.js';

const run = promisify(execFile);

/** How long a node may be unreachable before the cluster fails it over (cluster-node-timeout). */
export const CLUSTER_NODE_TIMEOUT_MS = 1000;

/** A Redis Cluster of private redis-server processes on free ports, killed when the test ends. */
export interface PrivateRedisCluster {
  readonly nodes: readonly RedisProcess[];
  /** The value of REDIS_CLUSTER_NODES: every node, comma-separated. */
  readonly seeds: string;
  readonly topology: RedisTopology;
  /** The primaries now, as every live node agrees. */
  primaries(): Promise<RedisProcess[]>;
  /** The primary that serves `key` now. */
  primaryOf(key: string): Promise<RedisProcess>;
  /** The replicas of a primary now. */
  replicasOf(primary: RedisProcess): Promise<RedisProcess[]>;
  /** Resolves when every live node reports cluster_state:ok and every replica is in sync. */
  settled(timeoutMs?: number): Promise<void>;
  /** Moves the slot of `key`, with its keys, to the primary `to` (a resharding of one slot). */
  moveSlotOf(key: string, to: RedisProcess): Promise<void>;
}

interface NodeLine {
  readonly port: number;
  readonly role: 'master' | 'slave';
  readonly id: string;
  readonly primaryId: string;
  readonly failed: boolean;
  readonly slots: readonly [number, number][];
}

function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, primaryId, , , , , ...slots] = line.trim().split(' ');
      return {
        id: id as string,
        port: Number(/:(\d+)@/.exec(address as string)?.[1]),
        role: (flags as string).includes('master') ? ('master' as const) : ('slave' as const),
        primaryId: primaryId as string,
        failed: /fail/.test(flags as string),
        slots: slots
          .filter((range) => /^\d/.test(range))
          .map((range) => {
            const [from, to] = range.split('-').map(Number);
            return [from as number, to ?? (from as number)] as [number, number];
          }),
      };
    });
}

/**
 * Starts `primaries` primaries with `replicasPerPrimary` replicas each (3 + 3 by default),
 * joined with `redis-cli --cluster create`, and waits until the cluster is ok and every
 * replica in sync. Fails (never skips) when redis-server or redis-cli is missing.
 */
export async function startRedisCluster(
  t: Teardown,
  { primaries = 3, replicasPerPrimary = 1 }: { primaries?: number; replicasPerPrimary?: number } = {},
): Promise<PrivateRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'oauth-cluster-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const count = primaries * (1 + replicasPerPrimary);
  const nodes = await Promise.all(
    Array.from({ length: count }, () =>
      onFreePorts(async () => {
        const [port, busPort] = [await freePort(), await freePort()];
        return startRedisProcess(
          t,
          port,
          [
            '--port',
            String(port),
            ...QUIET_NODE,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${port}.conf`),
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            String(CLUSTER_NODE_TIMEOUT_MS),
            // Replicas sync at once instead of waiting 5 s for more replicas to join.
            '--repl-diskless-sync-delay',
            '0',
            '--dir',
            dir,
          ],
          dir,
        );
      }),
    ),
  );
  try {
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      String(replicasPerPrimary),
      '--cluster-yes',
    ]);
  } catch (err) {
    throw new Error(`redis-cli --cluster create failed: ${(err as Error).message}`, { cause: err });
  }
  const byPort = new Map(nodes.map((node) => [node.port, node]));
  const live = () => nodes.filter((node) => !node.exited());
  const view = async (): Promise<NodeLine[]> => {
    for (const node of live()) {
      try {
        return parseNodes(String(await nodeCommand(node.port, 'CLUSTER', 'NODES')));
      } catch {
        // try the next node
      }
    }
    throw new Error('no cluster node answers');
  };
  const processOf = (line: NodeLine) => byPort.get(line.port) as RedisProcess;
  const cluster: PrivateRedisCluster = {
    nodes,
    seeds: nodes.map((node) => `127.0.0.1:${node.port}`).join(','),
    topology: { kind: 'cluster', nodes: nodes.map((node): RedisAddress => ({ host: '127.0.0.1', port: node.port })) },
    primaries: async () => (await view()).filter((line) => line.role === 'master' && !line.failed && line.slots.length > 0).map(processOf),
    primaryOf: async (key) => {
      const slot = Number(await nodeCommand((live()[0] as RedisProcess).port, 'CLUSTER', 'KEYSLOT', key));
      const owner = (await view()).find(
        (line) => line.role === 'master' && !line.failed && line.slots.some(([from, to]) => slot >= from && slot <= to),
      );
      if (!owner) throw new Error(`no live primary serves slot ${slot}`);
      return processOf(owner);
    },
    replicasOf: async (primary) => {
      const lines = await view();
      const id = lines.find((line) => line.port === primary.port)?.id;
      return lines.filter((line) => line.role === 'slave' && line.primaryId === id && !line.failed).map(processOf);
    },
    settled: (timeoutMs = 20_000) =>
      waitFor(
        'the cluster to settle',
        async () => {
          for (const node of live()) {
            if (!/^cluster_state:ok/m.test(String(await nodeCommand(node.port, 'CLUSTER', 'INFO')))) return false;
            if (!(await inSync(node.port))) return false;
          }
          return true;
        },
        timeoutMs,
      ),
    moveSlotOf: async (key, to) => {
      const from = await cluster.primaryOf(key);
      if (from.port === to.port) return;
      const slot = String(await nodeCommand(to.port, 'CLUSTER', 'KEYSLOT', key));
      const idOf = async (node: RedisProcess) => String(await nodeCommand(node.port, 'CLUSTER', 'MYID'));
      const [fromId, toId] = await Promise.all([idOf(from), idOf(to)]);
      await nodeCommand(to.port, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId);
      await nodeCommand(from.port, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
      for (;;) {
        const keys = (await nodeCommand(from.port, 'CLUSTER', 'GETKEYSINSLOT', slot, '100')) as string[];
        if (keys.length === 0) break;
        await nodeCommand(from.port, 'MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys);
      }
      for (const primary of [to, from, ...(await cluster.primaries())]) {
        await nodeCommand(primary.port, 'CLUSTER', 'SETSLOT', slot, 'NODE', toId);
      }
      await cluster.settled();
    },
  };
  await cluster.settled();
  return cluster;
}
