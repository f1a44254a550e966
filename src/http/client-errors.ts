import { type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type Duplex, finished } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/**
 * What Node's HTTP parser rejects before Fastify sees a request: malformed requests,
 * unknown methods, oversized headers, and requests not received within the request
 * timeout. Fastify's default handler logs the whole error at trace, `rawPacket`
 * included (headers, cookies, bodies with passwords); this one logs the error code only.
 */

interface ClientError extends Error {
  readonly code?: string;
  /** The bytes the parser rejected: read for the method only, never logged. */
  readonly rawPacket?: unknown;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'the request is not valid HTTP/1.1',
  408: 'the request was not received in time',
  431: 'the request headers are too large',
};

function statusFor(code: string | undefined): number {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/**
 * A complete HTTP/1.1 response written straight to the socket, which then closes.
 * RFC 9110 §9.3.2: the server "MUST NOT send content in the response" to HEAD.
 */
function rawJsonResponse(statusCode: number, body: unknown, toHead: boolean): string {
  const payload = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}`,
    'Content-Type: application/json;charset=UTF-8',
    'Cache-Control: no-store',
    'Pragma: no-cache',
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(payload)}`,
  ].join('\r\n');
  return `${head}\r\n\r\n${toHead ? '' : payload}`;
}

/** No request exists yet: the method is read from the rejected packet when it starts the request. */
function isHeadRequest(err: ClientError): boolean {
  return Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/** The server's `clientError` listener (Fastify's `clientErrorHandler` option). */
export function answerClientError(log: () => FastifyBaseLogger) {
  // Node reports every further parse error of a connection too: answer each connection once.
  const answered = new WeakSet<Duplex>();
  return (err: ClientError, socket: Duplex): void => {
    // The peer is gone: there is nothing to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const statusCode = statusFor(err.code);
    log().info({ clientError: err.code ?? 'unknown', statusCode, remoteAddress: (socket as Socket).remoteAddress }, 'client error');
    const answer = () => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      socket.end(
        rawJsonResponse(statusCode, { error: 'invalid_request', error_description: DESCRIPTIONS[statusCode] }, isHeadRequest(err)),
      );
      // end() lets the answer leave; destroy whatever the peer keeps sending after it.
      socket.once('finish', () => socket.destroy());
    };
    const pending = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!pending) {
      answer();
    } else if (pending.req.complete) {
      // The bad bytes follow a complete request (a body sent without framing, a pipelined
      // request). RFC 9112 §9.3.2: "A server MUST send its responses to those requests in
      // the same order that the requests were received": its answer leaves first.
      finished(pending, (error) => (error ? socket.destroy() : answer()));
    } else if (pending.headersSent) {
      // The request itself is cut short, but its response has begun: it cannot be replaced
      // without corrupting it.
      socket.destroy();
    } else {
      // The request itself is cut short (timeout, malformed body): answer it now.
      answer();
    }
  };
}

/**
 * RFC 9110 §9.3.6: CONNECT asks for a tunnel, which this server never opens. Node hands
 * it to `connect` listeners and, without one, drops the connection unanswered; this
 * routes it like any other request (so it gets the same 404/405 answer), then closes.
 */
export function routeConnectRequests(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    // Node took its own listeners off the socket: errors are ours to absorb.
    socket.on('error', () => socket.destroy());
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once('finish', () => {
      response.detachSocket(socket);
      socket.end();
    });
    app.routing(request, response);
  });
}
