import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import type { TestCertificate } from './tls.js';

/** What the server answers on a path. */
export interface ServedResponse {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Sends the head and this much of the body, then nothing more (a slow body). */
  readonly stallAfter?: number;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * A local web server publishing documents, as a client publishes its metadata document:
 * https with the test certificate (or plain http), on 127.0.0.1 and a free port. It
 * records every request and counts connections, so tests can prove nothing was fetched.
 */
export class DocumentServer {
  readonly requests: ReceivedRequest[] = [];
  connections = 0;
  private readonly routes = new Map<string, ServedResponse | (() => ServedResponse)>();

  origin = '';
  port = 0;

  private constructor() {}

  static async start(t: Test, certificate: TestCertificate | undefined): Promise<DocumentServer> {
    const documents = new DocumentServer();
    const handle = (request: IncomingMessage, response: ServerResponse) => documents.answer(request, response);
    const server = certificate ? createHttpsServer({ key: certificate.key, cert: certificate.cert }, handle) : createHttpServer(handle);
    server.on('connection', () => (documents.connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    documents.port = (server.address() as AddressInfo).port;
    documents.origin = `${certificate ? 'https' : 'http'}://127.0.0.1:${documents.port}`;
    t.teardown(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return documents;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  serve(path: string, response: ServedResponse | (() => ServedResponse)): void {
    this.routes.set(path, response);
  }

  /** Serves `document` as JSON with the given extra headers. */
  serveJson(path: string, document: unknown, headers: Record<string, string> = {}): void {
    this.serve(path, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(document) });
  }

  requestsFor(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '/';
    this.requests.push({ method: request.method ?? '', path, headers: request.headers });
    const route = this.routes.get(path);
    const served = typeof route === 'function' ? route() : (route ?? { status: 404, body: 'not found' });
    response.writeHead(served.status ?? 200, served.headers ?? {});
    const body = served.body ?? '';
    if (served.stallAfter === undefined) response.end(body);
    else response.write(Buffer.from(body).subarray(0, served.stallAfter));
  }
}
