import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import type { CommandResult } from '../../harness/process.js';

/**
 * A stand-in for the admin API that answers what a test scripts and records every request,
 * to test the wire format of the operator command's remote mode: the method, path, query,
 * headers and JSON body it sends, and the lines it prints for an answer. It is used where
 * the real route is not on this branch (clients and users); what the server does with a
 * request is tested against the real routes (test/unit/cli.remote.grants.test.ts, and
 * test/e2e/cli.remote.test.ts with every route).
 */

export interface RecordedRequest {
  readonly method: string;
  /** The path with its query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as sent ('' when none). */
  readonly body: string;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON (application/json unless headers say otherwise); a string as is. */
  readonly body?: unknown;
}

export const problem = (status: number, name: string, title: string, detail: string, extra: Record<string, unknown> = {}) => ({
  status,
  headers: { 'content-type': 'application/problem+json' },
  body: { type: `urn:oauth2-token-service:problem:${name}`, title, status, detail, ...extra },
});

export class FakeAdminApi {
  readonly requests: RecordedRequest[] = [];
  private answers: ScriptedAnswer[] = [];
  url = '';

  /** The answers to the next requests, in order; a request beyond them gets a 500 the test will see. */
  answer(...answers: ScriptedAnswer[]): void {
    this.answers = answers;
    this.requests.length = 0;
  }

  static async start(t: Test): Promise<FakeAdminApi> {
    const fake = new FakeAdminApi();
    const server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += String(chunk);
      fake.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = fake.answers.shift() ?? { status: 500, body: 'no answer scripted' };
      const json = typeof answer.body === 'object' && answer.body !== null;
      res.writeHead(answer.status, { ...(json ? { 'content-type': 'application/json' } : {}), ...answer.headers });
      res.end(answer.body === undefined ? undefined : json ? JSON.stringify(answer.body) : String(answer.body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t.teardown(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return fake;
  }

  /** The requests as the test compares them: method, URL, and the parsed JSON body (if any). */
  sent(): { method: string; url: string; json?: unknown }[] {
    return this.requests.map((r) => ({ method: r.method, url: r.url, ...(r.body === '' ? {} : { json: JSON.parse(r.body) as unknown }) }));
  }
}

/** A list printed from two pages: exactly `lines` on stdout, nothing on stderr, exit 0; `path` asked for twice, the second time after `next`. */
export function expectTwoPages(t: Test, api: FakeAdminApi, run: CommandResult, path: string, next: string, lines: string[]): void {
  t.same([run.code, run.stderr, run.stdout], [0, '', lines.map((line) => `${line}\n`).join('')]);
  t.same(api.sent(), [
    { method: 'GET', url: `${path}?limit=500` },
    { method: 'GET', url: `${path}?limit=500&cursor=${next}` },
  ]);
}
