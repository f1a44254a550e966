import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Closing without dropping work, for orchestrators that send SIGTERM and wait a bounded
 * time. Node's `server.close()` stops accepting and closes keep-alive connections that
 * sit between requests, but a connection that has not sent a request yet keeps the
 * process alive until a timeout (tens of seconds), and one whose response was already
 * under way stays open afterwards. Once `close()` starts:
 * - every keep-alive connection between requests is closed at once;
 * - a connection that has not sent its first request gets FIRST_REQUEST_GRACE_MS to do so,
 *   then is closed: a client that connected just before the close (or, with WORKERS, a
 *   connection the primary handed over just before a graceful restart) is answered, not
 *   reset;
 * - every response sent from then on carries `Connection: close`, and its connection
 *   closes when the last response on it is done;
 * - whatever is still open when the timeout expires is closed.
 */
const FIRST_REQUEST_GRACE_MS = 250;

export interface GracefulClose {
  close(timeoutMs: number): Promise<void>;
}

/** Installs the connection bookkeeping; call before the app is ready (before `listen`). */
export function useGracefulClose(app: FastifyInstance): GracefulClose {
  const inProgress = new Map<Socket, number>();
  /** Connections that have carried a request: between requests they are idle keep-alives. */
  const served = new WeakSet<Socket>();
  let closing = false;

  app.server.on('connection', (socket: Socket) => {
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  /** Responses not yet sent: once closing, each is marked to close its connection. */
  const unsent = new Set<ServerResponse>();
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    served.add(socket);
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
    // Node writes `Connection: close` and closes after the response when shouldKeepAlive is
    // false: no per-response hook is needed on the hot path to say it.
    if (closing) response.shouldKeepAlive = false;
    else unsent.add(response);
    response.once('close', () => {
      unsent.delete(response);
      const count = inProgress.get(socket);
      if (count === undefined) return; // the connection is already gone
      inProgress.set(socket, count - 1);
      if (closing && count === 1) socket.end();
    });
  });

  app.addHook('preClose', (done) => {
    closing = true;
    for (const response of unsent) if (!response.headersSent) response.shouldKeepAlive = false;
    unsent.clear();
    const closeIfIdle = (socket: Socket) => {
      if (inProgress.get(socket) === 0) socket.destroy();
    };
    for (const [socket, count] of inProgress) {
      if (count > 0) continue;
      if (served.has(socket)) socket.destroy();
      else setTimeout(closeIfIdle, FIRST_REQUEST_GRACE_MS, socket).unref();
    }
    done();
  });

  return {
    async close(timeoutMs) {
      const deadline = setTimeout(() => {
        app.log.warn(
          { connections: inProgress.size, timeoutSeconds: timeoutMs / 1000 },
          'shutdown timeout: closing the remaining connections',
        );
        for (const socket of inProgress.keys()) socket.destroy();
      }, timeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
