import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { FetchFailed, type FetchFailureCode } from '../../src/fetch/errors.js';
import { type FetchPolicy, fetchJson, type ResolvedAddress, type Resolver } from '../../src/fetch/safe-fetch.js';
import { DocumentServer } from '../helpers/document-server.js';
import { freePort } from '../../harness/ports.js';
import { selfSignedCertificate } from '../helpers/tls.js';

const DOCUMENT = { client_id: 'https://mcp-client.test/client.json', redirect_uris: ['http://127.0.0.1/callback'] };

/** A resolver answering from a table, as DNS would; it counts its calls. */
function dnsTable(table: Record<string, readonly ResolvedAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(resolve, { calls });
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

async function refusal(promise: Promise<unknown>): Promise<{ code: FetchFailureCode; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchFailed) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('the fetch succeeded');
}

t.test('the SSRF-safe fetcher', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const server = await DocumentServer.start(t, certificate);
  // The document server listens on loopback: tests that must reach it allow special-use addresses.
  const base: FetchPolicy = { allowHttp: false, allowSpecialUseAddresses: true, timeoutMs: 2000, maxBytes: 5120, ca: certificate.cert };
  const strict: FetchPolicy = { ...base, allowSpecialUseAddresses: false };

  t.test('accepted: a JSON document at an https URL, fetched with nothing but Accept', async (t) => {
    server.serveJson('/client.json', DOCUMENT, { 'cache-control': 'max-age=600', age: '12', 'set-cookie': 'session=abc' });
    const fetched = await fetchJson(server.url('/client.json'), base);
    t.same(fetched, { body: DOCUMENT, cacheControl: 'max-age=600', age: '12' });
    const request = server.requests.at(-1);
    t.equal(request?.method, 'GET');
    t.equal(request?.headers.accept, 'application/json');
    t.equal(request?.headers['accept-encoding'], 'identity', 'no compression offered');
    t.equal(request?.headers.cookie, undefined, 'no cookies');
    t.equal(request?.headers.authorization, undefined, 'no credentials');

    await fetchJson(server.url('/client.json'), base);
    t.equal(server.requests.at(-1)?.headers.cookie, undefined, 'a cookie set earlier is never sent back');
  });

  t.test('accepted: application/*+json and a charset parameter', async (t) => {
    server.serve('/suffix.json', { headers: { 'content-type': 'application/oauth-client+json; charset=utf-8' }, body: '{"a":1}' });
    t.same((await fetchJson(server.url('/suffix.json'), base)).body, { a: 1 });
  });

  t.test('the connection goes to the address the lookup checked (the name exists only in the injected resolver)', async (t) => {
    server.serveJson('/named.json', DOCUMENT);
    const resolve = dnsTable({ 'mcp-client.test': [v4('127.0.0.1')] });
    const fetched = await fetchJson(`https://mcp-client.test:${server.port}/named.json`, { ...base, resolve });
    t.same(fetched.body, DOCUMENT);
    t.same(resolve.calls, ['mcp-client.test'], 'resolved once, by the connection itself: no separate check to rebind against');
  });

  t.test('refused: an http URL unless http is allowed', async (t) => {
    const plain = await DocumentServer.start(t, undefined);
    plain.serveJson('/client.json', DOCUMENT);
    t.same(await refusal(fetchJson(plain.url('/client.json'), base)), {
      code: 'insecure_scheme',
      message: 'only https URLs are fetched',
    });
    t.equal(plain.connections, 0, 'no connection was made');
    t.same((await fetchJson(plain.url('/client.json'), { ...base, allowHttp: true })).body, DOCUMENT, 'allowed in insecure mode');
  });

  t.test('refused before connecting: a host name that resolves to a special-use address', async (t) => {
    const before = server.connections;
    const cases: Array<[string, ResolvedAddress[]]> = [
      ['loopback', [v4('127.0.0.1')]],
      ['private 10/8', [v4('10.0.0.7')]],
      ['private 192.168/16', [v4('192.168.1.20')]],
      ['link-local (cloud metadata)', [v4('169.254.169.254')]],
      ['carrier-grade NAT', [v4('100.64.3.4')]],
      ['IPv6 loopback', [v6('::1')]],
      ['IPv4-mapped loopback', [v6('::ffff:127.0.0.1')]],
      ['IPv6 unique local', [v6('fd12:3456::1')]],
      ['IPv6 link-local', [v6('fe80::1')]],
      ['one private address among public ones', [v4('93.184.215.14'), v4('10.1.1.1')]],
    ];
    for (const [what, addresses] of cases) {
      const resolve = dnsTable({ 'client.example': addresses });
      const refused = await refusal(fetchJson(`https://client.example:${server.port}/client.json`, { ...strict, resolve }));
      const bad = addresses.find((a) => a.address !== '93.184.215.14')?.address;
      t.same(
        refused,
        { code: 'special_use_address', message: `client.example resolves to ${bad}, a special-use address (RFC 6890)` },
        what,
      );
    }
    t.equal(server.connections, before, 'no connection was ever opened');
  });

  t.test('refused before connecting: an IP literal in a special-use range, however it is written', async (t) => {
    const before = server.connections;
    const cases: Array<[string, string]> = [
      [server.url('/client.json'), '127.0.0.1'],
      [`https://[::1]:${server.port}/client.json`, '::1'],
      [`https://0x7f000001:${server.port}/client.json`, '127.0.0.1'],
      [`https://[::ffff:7f00:1]:${server.port}/client.json`, '::ffff:7f00:1'],
      [`https://169.254.169.254/latest/meta-data/`, '169.254.169.254'],
    ];
    for (const [url, address] of cases) {
      t.same(
        await refusal(fetchJson(url, strict)),
        { code: 'special_use_address', message: `${address} is a special-use address (RFC 6890)` },
        url,
      );
    }
    t.equal(server.connections, before, 'no connection was ever opened');
  });

  t.test('refused: a redirect, to another host or the same one (never followed)', async (t) => {
    server.serve('/moved.json', { status: 302, headers: { location: 'https://other.example/client.json' } });
    server.serve('/here.json', { status: 301, headers: { location: '/client.json' } });
    const requestsBefore = server.requests.length;
    t.same(await refusal(fetchJson(server.url('/moved.json'), base)), {
      code: 'status',
      message: 'answered HTTP 302 (redirects are not followed), not 200',
    });
    t.same(await refusal(fetchJson(server.url('/here.json'), base)), {
      code: 'status',
      message: 'answered HTTP 301 (redirects are not followed), not 200',
    });
    t.equal(server.requests.length, requestsBefore + 2, 'one request each: no redirect followed');
  });

  t.test('refused: any status but 200', async (t) => {
    server.serve('/gone.json', { status: 404, headers: { 'content-type': 'application/json' }, body: '{}' });
    server.serve('/empty.json', { status: 204 });
    t.same(await refusal(fetchJson(server.url('/gone.json'), base)), { code: 'status', message: 'answered HTTP 404, not 200' });
    t.same(await refusal(fetchJson(server.url('/empty.json'), base)), { code: 'status', message: 'answered HTTP 204, not 200' });
  });

  t.test('refused: a body over the size limit, announced or not', async (t) => {
    const big = JSON.stringify({ padding: 'x'.repeat(6000) });
    server.serve('/big.json', { headers: { 'content-type': 'application/json' }, body: big });
    server.serve('/big-chunked.json', { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: big });
    const tooLarge = { code: 'too_large', message: 'the body is larger than 5120 bytes' };
    t.same(await refusal(fetchJson(server.url('/big.json'), base)), tooLarge, 'Content-Length says so');
    t.same(await refusal(fetchJson(server.url('/big-chunked.json'), base)), tooLarge, 'counted while reading');
    server.serve('/exact.json', { headers: { 'content-type': 'application/json' }, body: `"${'y'.repeat(5118)}"` });
    t.equal(((await fetchJson(server.url('/exact.json'), base)).body as string).length, 5118, 'exactly the limit is accepted');
  });

  t.test('refused: a body that does not finish before the deadline', async (t) => {
    server.serve('/slow.json', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(DOCUMENT), stallAfter: 10 });
    const started = Date.now();
    t.same(await refusal(fetchJson(server.url('/slow.json'), { ...base, timeoutMs: 300 })), {
      code: 'timeout',
      message: 'no complete answer within 300 ms',
    });
    t.ok(Date.now() - started < 2000, 'gave up at the deadline');
  });

  t.test('refused: a content type that is not JSON, compression, and malformed JSON', async (t) => {
    server.serve('/page.html', { headers: { 'content-type': 'text/html' }, body: '{}' });
    server.serve('/untyped', { body: '{}' });
    server.serve('/gzip.json', { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{}' });
    server.serve('/broken.json', { headers: { 'content-type': 'application/json' }, body: '{"client_id":' });
    server.serve('/latin1.json', { headers: { 'content-type': 'application/json' }, body: Buffer.from([0x22, 0xe9, 0x22]) });
    t.same(await refusal(fetchJson(server.url('/page.html'), base)), { code: 'content_type', message: 'answered text/html, not JSON' });
    t.same(await refusal(fetchJson(server.url('/untyped'), base)), { code: 'content_type', message: 'answered no content type, not JSON' });
    t.same(await refusal(fetchJson(server.url('/gzip.json'), base)), {
      code: 'content_encoding',
      message: 'answered with Content-Encoding gzip; none was accepted',
    });
    const malformed = { code: 'malformed_json', message: 'the body is not JSON in UTF-8' };
    t.same(await refusal(fetchJson(server.url('/broken.json'), base)), malformed);
    t.same(await refusal(fetchJson(server.url('/latin1.json'), base)), malformed);
  });

  t.test('refused: a certificate the server does not trust, user information, names that do not resolve', async (t) => {
    server.serveJson('/client.json', DOCUMENT);
    const untrusted = await refusal(fetchJson(server.url('/client.json'), { ...base, ca: undefined }));
    t.equal(untrusted.code, 'network');
    t.match(untrusted.message, /self[- ]signed certificate/);
    t.same(await refusal(fetchJson(`https://user:pass@mcp-client.test:${server.port}/client.json`, base)), {
      code: 'bad_url',
      message: 'a URL with user information is never fetched',
    });
    t.same(await refusal(fetchJson('https://nowhere.test/client.json', { ...base, resolve: dnsTable({}) })), {
      code: 'unresolvable',
      message: 'nowhere.test could not be resolved',
    });
  });

  t.test('a failure before the connection is up is the host’s (hostWide); after it, the URL’s', async (t) => {
    const failureOf = async (promise: Promise<unknown>) => {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      return err instanceof FetchFailed ? `${err.code}${err.hostWide ? ', host-wide' : ''}: ${err.message}` : String(err);
    };
    // Accepts connections and never answers: no TLS handshake ever completes.
    const silent = createServer((socket: Socket) => t.teardown(() => socket.destroy()));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    t.teardown(() => silent.close());
    const silentPort = (silent.address() as { port: number }).port;
    const closedPort = await freePort();
    server.serve('/gone.json', { status: 404 });
    server.serve('/stalled.json', { headers: { 'content-type': 'application/json' }, body: '{"a":1}', stallAfter: 2 });
    const quick = { ...base, timeoutMs: 300 };
    t.same(
      [
        await failureOf(fetchJson('https://nowhere.test/client.json', { ...base, resolve: dnsTable({}) })),
        await failureOf(
          fetchJson(`https://mcp-client.test:${server.port}/x`, { ...strict, resolve: dnsTable({ 'mcp-client.test': [v4('10.0.0.1')] }) }),
        ),
        await failureOf(fetchJson(`https://127.0.0.1:${closedPort}/client.json`, base)),
        await failureOf(fetchJson(`https://127.0.0.1:${silentPort}/client.json`, quick)),
        await failureOf(fetchJson(server.url('/gone.json'), base)),
        await failureOf(fetchJson(server.url('/stalled.json'), quick)),
      ],
      [
        'unresolvable, host-wide: nowhere.test could not be resolved',
        'special_use_address, host-wide: mcp-client.test resolves to 10.0.0.1, a special-use address (RFC 6890)',
        `network, host-wide: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
        'timeout, host-wide: no connection within 300 ms',
        'status: answered HTTP 404, not 200',
        'timeout: no complete answer within 300 ms',
      ],
    );
    const untrusted = await failureOf(fetchJson(server.url('/gone.json'), { ...base, ca: undefined }));
    t.match(untrusted, /^network, host-wide: self[- ]signed certificate/, 'a certificate is the host’s, whatever the path');
  });
});
