import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** A response read off a raw socket, with how the connection ended. */
export interface RawResult {
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** True when the server closed the connection (within `waitMs`). */
  readonly closed: boolean;
  /** True when the connection was reset or failed rather than answered. */
  readonly reset: boolean;
  readonly elapsedMs: number;
}

/** The final response in `raw`, after any interim 1xx (100 Continue). */
export function parseRawResponse(raw: string): Pick<RawResult, 'status' | 'headers' | 'body'> {
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n')) raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  return { status: status === undefined ? undefined : Number(status), headers, body: split === -1 ? '' : raw.slice(split + 4) };
}

export async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/**
 * Writes `chunks` (a string, or strings sent `gapMs` apart) to a fresh connection and
 * reads until the server closes it or `waitMs` passes; `endAfterWrite` half-closes after writing.
 */
export async function rawExchange(
  port: number,
  chunks: string | Buffer | readonly (string | Buffer)[],
  options: { waitMs?: number; gapMs?: number; endAfterWrite?: boolean } = {},
): Promise<RawResult> {
  const started = Date.now();
  const socket = await openSocket(port);
  let received = '';
  let reset = false;
  socket.on('data', (data) => (received += data.toString('latin1')));
  socket.on('error', () => (reset = true));
  const closed = new Promise<boolean>((resolve) => {
    socket.once('close', () => resolve(true));
    setTimeout(() => resolve(false), options.waitMs ?? 5000).unref();
  });
  for (const chunk of Array.isArray(chunks) ? chunks : [chunks]) {
    if (socket.destroyed) break;
    socket.write(chunk);
    if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
  }
  // Half-close: the server sees the end of what we send, so a truncated request is answered now.
  if (options.endAfterWrite && !socket.destroyed) socket.end();
  const wasClosed = await closed;
  socket.destroy();
  return { ...parseRawResponse(received), closed: wasClosed, reset, elapsedMs: Date.now() - started };
}

/** Listens on a free loopback port; the app is closed by its test's teardown. */
export async function listenOnFreePort(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

/** A raw connection that records what it receives. */
export interface RecordingClient {
  readonly socket: Socket;
  readonly received: () => string;
  /** Resolves when the connection closes. */
  readonly closed: Promise<void>;
}

export async function recordingClient(port: number): Promise<RecordingClient> {
  const socket = await openSocket(port);
  let received = '';
  socket.on('data', (data) => (received += data));
  socket.on('error', () => undefined);
  return { socket, received: () => received, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

/** A token request whose body stops half-way (29 bytes announced, 18 sent; `credentials` completes it). */
export const PARTIAL_TOKEN_REQUEST =
  'POST /oauth2/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\n\r\ngrant_type=client_';

/** A client holding a connection with a request in progress. */
export async function clientMidRequest(port: number): Promise<RecordingClient> {
  const client = await recordingClient(port);
  client.socket.write(PARTIAL_TOKEN_REQUEST);
  await new Promise((r) => setTimeout(r, 200));
  return client;
}
