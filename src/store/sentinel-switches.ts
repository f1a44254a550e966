import { Redis } from 'ioredis';

/** The sentinels of a Sentinel topology, as the connections to them are made. */
export interface SentinelWatchSettings {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  /** The name the sentinels monitor the primary under (REDIS_SENTINEL_NAME). */
  readonly name: string;
  readonly sentinelPassword?: string | undefined;
  readonly tls?: boolean | undefined;
}

const CHANNEL = '+switch-master';

/** Reconnection delays of a listener: quick at first, then every 2 s. */
const listenerDelay = (attempt: number): number => Math.min(attempt * 100, 2000);

/**
 * The primary a `+switch-master` message announces for `name` (`<name> <old-ip> <old-port>
 * <new-ip> <new-port>`), as `ip:port`; undefined for another name or another shape.
 */
export function announcedPrimary(message: string, name: string): string | undefined {
  const parts = message.split(' ');
  if (parts.length !== 5 || parts[0] !== name) return undefined;
  return `${parts[3]}:${parts[4]}`;
}

/** Where a connection is connected now (`ip:port`), or undefined while it has no socket. */
export function remoteAddress(client: Redis): string | undefined {
  const { remoteAddress: host, remotePort: port } = client.stream ?? {};
  return host === undefined || port === undefined ? undefined : `${host}:${port}`;
}

/**
 * Reconnects `client` when it is ready and connected somewhere other than `address`; the
 * reconnection asks the sentinels for the primary again. One connected there stays.
 */
export function reconnectUnlessOn(client: Redis, address: string): void {
  if (client.status !== 'ready') return;
  const current = remoteAddress(client);
  if (current !== undefined && current !== address) client.disconnect(true);
}

/**
 * Behind Sentinel, the process's connections follow the primary the sentinels announce:
 * one subscription to `+switch-master` per sentinel (for all the connections of a store),
 * and at each announcement every ready connection that is not on the announced primary
 * reconnects, which asks the sentinels for the primary again. A connection already on it
 * stays connected. ioredis' own failover detector reconnected its client at every
 * `+switch-master`, also one that had reconnected to the promoted replica by itself (a killed
 * primary drops every connection at once, and the sentinels name the promoted replica before
 * they announce it): the main connection was down again right after /readyz had answered
 * 200, and the reads and writes of that moment failed ("Stream isn't writeable"). A primary
 * that is cut off rather than dead keeps its connections open: the announcement moves them.
 * A connection that is not ready (connecting, reconnecting) asks the sentinels anyway.
 * Sentinels that announce host names rather than addresses make every ready connection
 * reconnect, as before.
 */
export class SentinelSwitches {
  private readonly clients = new Set<Redis>();
  private listeners: Redis[] = [];

  constructor(private readonly settings: SentinelWatchSettings) {}

  /** Follows the announcements for `client` from its first `ready` on, until `untrack`. */
  track(client: Redis): void {
    this.clients.add(client);
    client.once('ready', () => {
      if (this.clients.has(client)) this.listen();
    });
  }

  /** Stops following `client`; with no connection left, the subscriptions close. */
  untrack(client: Redis): void {
    this.clients.delete(client);
    if (this.clients.size > 0) return;
    for (const listener of this.listeners.splice(0)) listener.disconnect();
  }

  /** Reconnects every ready connection that is not on the primary `message` announces. */
  switched(message: string): void {
    const primary = announcedPrimary(message, this.settings.name);
    if (primary === undefined) return;
    for (const client of this.clients) reconnectUnlessOn(client, primary);
  }

  private listen(): void {
    if (this.listeners.length > 0) return;
    const { sentinelPassword, tls } = this.settings;
    this.listeners = this.settings.sentinels.map(({ host, port }) => {
      const listener = new Redis({
        host,
        port,
        ...(sentinelPassword === undefined ? {} : { password: sentinelPassword }),
        ...(tls ? { tls: {} } : {}),
        // A sentinel that is down now is subscribed to when it is back: the subscription
        // waits in the offline queue, and every reconnection subscribes again.
        maxRetriesPerRequest: null,
        retryStrategy: listenerDelay,
      });
      listener.on('error', () => {
        // Reconnects by itself; an unreachable sentinel is the other sentinels' to report.
      });
      listener.on('message', (channel: string, message: string) => {
        if (channel === CHANNEL) this.switched(message);
      });
      listener.subscribe(CHANNEL).catch(() => undefined);
      return listener;
    });
  }
}
