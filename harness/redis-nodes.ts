import { Redis } from 'ioredis';

/** Runs one command on a redis-server (node or sentinel) over a short-lived connection. */
export async function nodeCommand(port: number, ...args: string[]): Promise<unknown> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(args[0] as string, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/** Whether a node's replication is in sync: a primary always, a replica once its link to the primary is up. */
export async function inSync(port: number): Promise<boolean> {
  const info = String(await nodeCommand(port, 'INFO', 'replication'));
  return /^role:master/m.test(info) || /^master_link_status:up/m.test(info);
}

/** Polls `check` every 50 ms (a throw counts as not yet) until it holds; rejects after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
