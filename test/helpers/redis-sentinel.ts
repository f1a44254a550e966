import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisTopology } from '../../src/store/redis-connection.js';
import { freePort } from '../../harness/ports.js';
import type { Teardown } from '../../harness/process.js';
import { onFreePorts, QUIET_NODE, type RedisProcess, startRedisProcess } from '../../harness/redis.js';
import { inSync, nodeCommand, waitFor } from '../../harness/redis-nodes.js';

export const SENTINEL_MASTER_NAME = 'oauth-primary';
/** How long a primary may be unreachable before the sentinels agree it is down. */
export const SENTINEL_DOWN_AFTER_MS = 1000;

/** One primary, its replicas (one by default) and three sentinels (quorum 2), private processes on free ports. */
export interface PrivateRedisSentinel {
  /** The data nodes: the first started as primary, the others as its replicas. */
  readonly nodes: readonly RedisProcess[];
  readonly sentinels: readonly RedisProcess[];
  readonly name: string;
  /** The value of REDIS_SENTINELS. */
  readonly sentinelList: string;
  readonly topology: RedisTopology;
  /** The primary the sentinels name now. */
  primary(): Promise<RedisProcess>;
  /** Resolves when a sentinel names a live primary whose replicas are in sync and the sentinels have their quorum. */
  settled(timeoutMs?: number): Promise<void>;
}

export async function startRedisSentinel(t: Teardown, { replicas = 1 }: { replicas?: number } = {}): Promise<PrivateRedisSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'oauth-sentinel-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // Replicas sync at once (no 5 s wait for more replicas), and keep no RDB file.
  const fast = ['--repl-diskless-sync-delay', '0', '--dir', dir];
  const primary = await onFreePorts(async () => {
    const port = await freePort();
    return startRedisProcess(t, port, ['--port', String(port), ...QUIET_NODE, ...fast], dir);
  });
  const primaryPort = primary.port;
  const replicaNodes = await Promise.all(
    Array.from({ length: replicas }, () =>
      onFreePorts(async () => {
        const port = await freePort();
        return startRedisProcess(
          t,
          port,
          ['--port', String(port), ...QUIET_NODE, ...fast, '--replicaof', '127.0.0.1', String(primaryPort)],
          dir,
        );
      }),
    ),
  );
  const sentinels = await Promise.all(
    [0, 1, 2].map(async (index) => {
      const port = await freePort();
      const file = join(dir, `sentinel-${index}.conf`);
      // Sentinel rewrites its configuration file as it learns the topology: one each, writable.
      await writeFile(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${SENTINEL_DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 2000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      return startRedisProcess(t, port, [file, '--sentinel', '--loglevel', 'warning'], dir);
    }),
  );
  const nodes = [primary, ...replicaNodes];
  const live = <T extends RedisProcess>(list: readonly T[]) => list.filter((node) => !node.exited());
  const primaryNow = async (): Promise<RedisProcess> => {
    for (const sentinel of live(sentinels)) {
      try {
        const [, port] = (await nodeCommand(sentinel.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER_NAME)) as [
          string,
          string,
        ];
        const node = nodes.find((candidate) => candidate.port === Number(port));
        if (node) return node;
      } catch {
        // ask the next sentinel
      }
    }
    throw new Error('no sentinel names a primary');
  };
  const setup: PrivateRedisSentinel = {
    nodes,
    sentinels,
    name: SENTINEL_MASTER_NAME,
    sentinelList: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','),
    topology: {
      kind: 'sentinel',
      sentinels: sentinels.map((sentinel) => ({ host: '127.0.0.1', port: sentinel.port })),
      name: SENTINEL_MASTER_NAME,
    },
    primary: primaryNow,
    settled: (timeoutMs = 20_000) =>
      waitFor(
        'the sentinels to settle',
        async () => {
          const current = await primaryNow();
          if (current.exited() || !/^role:master/m.test(String(await nodeCommand(current.port, 'INFO', 'replication')))) return false;
          for (const node of live(nodes)) if (!(await inSync(node.port))) return false;
          // Every sentinel knows the others and the replica, so a failover can be authorized.
          for (const sentinel of live(sentinels)) {
            const quorum = String(await nodeCommand(sentinel.port, 'SENTINEL', 'CKQUORUM', SENTINEL_MASTER_NAME));
            if (!quorum.startsWith(`OK ${live(sentinels).length} usable`)) return false;
            const replicas = (await nodeCommand(sentinel.port, 'SENTINEL', 'REPLICAS', SENTINEL_MASTER_NAME)) as unknown[];
            if (replicas.length < live(nodes).length - 1) return false;
          }
          return true;
        },
        timeoutMs,
      ),
  };
  await setup.settled();
  return setup;
}
