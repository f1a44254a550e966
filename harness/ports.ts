import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports the tests choose come from below the kernel's ephemeral range. A port the kernel
 * handed to a listener on port 0 and took back is an ephemeral port: between `freePort`
 * and the moment a child process binds it, any outgoing connection on the host (a Redis
 * client, a load generator) or any listener on port 0 may be given that very port, and
 * the child exits with EADDRINUSE (CI saw it once in 31,530 tests). Below the range only
 * processes that chose the port themselves bind it.
 */
const LOWEST = 20_000;

/** The first port of Linux's ephemeral range (`ip_local_port_range`), or undefined elsewhere. */
function ephemeralStart(): number | undefined {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(first);
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : undefined;
  } catch {
    return undefined;
  }
}

const EPHEMERAL_START = ephemeralStart();

/** Ports this process handed out: never the same one twice (another test may not have bound it yet). */
const handedOut = new Set<number>();

/** Whether a listener on 127.0.0.1 can take `port` now (0: the kernel picks); the port it got. */
async function bindable(port: number): Promise<number | undefined> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  } catch {
    return undefined;
  }
  const bound = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return bound;
}

/** A port that was free a moment ago and that neither the kernel nor this process will hand to anyone else. */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_START === undefined) {
    const port = await bindable(0);
    if (port === undefined) throw new Error('no free port');
    return port;
  }
  for (let tries = 0; tries < 200; tries += 1) {
    const port = LOWEST + Math.floor(Math.random() * (EPHEMERAL_START - LOWEST));
    if (handedOut.has(port)) continue;
    if ((await bindable(port)) === port) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${LOWEST} and ${EPHEMERAL_START - 1}`);
}
