import t, { type Test } from 'tap';
import { MetadataDocumentClients } from '../../src/clients/metadata-documents.js';
import type { ResolvedAddress } from '../../src/fetch/safe-fetch.js';
import { DocumentServer } from '../helpers/document-server.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

/**
 * The metadata-document client source against a local HTTPS server publishing documents
 * as `https://mcp-client.test:<port>/...`; the injected resolver is the test's DNS.
 */

interface Setup {
  readonly server: DocumentServer;
  readonly source: MetadataDocumentClients;
  readonly refusals: Array<[string, string]>;
  /** Host names the fetcher resolved, in order (mcp-client.test and client.example are the document server). */
  readonly resolutions: string[];
  readonly advance: (seconds: number) => void;
  readonly url: (path: string) => string;
  /** Publishes a document at `path` whose client_id is its URL (with `fields` changed); returns that id. */
  readonly publish: (path: string, fields?: Record<string, unknown>, headers?: Record<string, string>) => string;
}

async function setup(
  t: Test,
  certificate: TestCertificate,
  options: { address?: string; allowSpecialUseAddresses?: boolean; minTtl?: number } = {},
): Promise<Setup> {
  const server = await DocumentServer.start(t, certificate);
  let now = 1_700_000_000_000;
  const refusals: Array<[string, string]> = [];
  const resolutions: string[] = [];
  const address: ResolvedAddress = { address: options.address ?? '127.0.0.1', family: 4 };
  const source = new MetadataDocumentClients({
    policy: { grantTypes: ['authorization_code', 'refresh_token'], offeredScopes: () => ['read', 'write'] },
    fetch: {
      allowHttp: false,
      allowSpecialUseAddresses: options.allowSpecialUseAddresses ?? true,
      timeoutMs: 2000,
      maxBytes: 5120,
      ca: certificate.cert,
      resolve: async (hostname) => {
        resolutions.push(hostname);
        return hostname === 'mcp-client.test' || hostname === 'client.example' ? [address] : [];
      },
    },
    ttl: { minSeconds: options.minTtl ?? 60, maxSeconds: 86_400 },
    clock: () => now,
    onRefused: (clientId, reason) => void refusals.push([clientId, reason]),
  });
  const url = (path: string) => `https://mcp-client.test:${server.port}${path}`;
  return {
    server,
    source,
    refusals,
    resolutions,
    advance: (seconds) => void (now += seconds * 1000),
    url,
    publish: (path, fields = {}, headers = {}) => {
      server.serveJson(path, clientMetadataDocument(url(path), fields), headers);
      return url(path);
    },
  };
}

t.test('a client_id that is an https URL is looked up in its metadata document', async (t) => {
  const certificate = await selfSignedCertificate(t);

  t.test('found: the document is fetched, validated and used', async (t) => {
    const { source, refusals, publish } = await setup(t, certificate);
    const id = publish('/client.json');
    const client = await source.find(id);
    t.equal(client?.clientId, id);
    t.equal(client?.clientName, 'Example <MCP> Client');
    t.equal(client?.fromMetadataDocument, true);
    t.same(refusals, []);
  });

  t.test('ids that are not URLs are not this source’s: nothing fetched, nothing logged', async (t) => {
    const { server, source, refusals } = await setup(t, certificate);
    t.equal(await source.find('web'), undefined);
    t.equal(await source.find('urn:example:client'), undefined);
    t.equal(server.requests.length, 0);
    t.same(refusals, []);
  });

  t.test('an id that breaks the URL rules is not fetched, and the reason is logged', async (t) => {
    const { server, source, refusals, url } = await setup(t, certificate);
    const id = `${url('/client.json')}#fragment`;
    t.equal(await source.find(id), undefined);
    t.equal(server.requests.length, 0);
    t.same(refusals, [[id, 'a Client Identifier URL MUST NOT contain a fragment component']]);
  });

  t.test('refused: a document whose client_id is not its URL', async (t) => {
    const { source, refusals, publish } = await setup(t, certificate);
    const id = publish('/client.json', { client_id: 'https://famous-app.example/client.json' });
    t.equal(await source.find(id), undefined, 'the client is unknown');
    t.same(refusals, [[id, 'its client_id is not the URL it was fetched from']]);
  });

  t.test('refused: a document with a secret', async (t) => {
    const { source, refusals, publish } = await setup(t, certificate);
    const id = publish('/client.json', { client_secret: 'shared', token_endpoint_auth_method: 'client_secret_basic' });
    t.equal(await source.find(id), undefined);
    t.same(refusals, [
      [
        id,
        'client_secret: MUST NOT be used in a metadata document; token_endpoint_auth_method: must be "none" or "private_key_jwt": a metadata document cannot hold a shared secret',
      ],
    ]);
  });

  t.test('refused: a document asking for a scope no resource offers (the policy of registrations)', async (t) => {
    const { source, refusals, publish } = await setup(t, certificate);
    const id = publish('/client.json', { scope: 'read write admin' });
    t.equal(await source.find(id), undefined);
    t.same(refusals, [[id, 'scope: not offered by any registered resource: admin']]);
  });

  t.test('refused: a URL resolving to a private address; nothing is fetched', async (t) => {
    const { server, source, refusals, publish } = await setup(t, certificate, { address: '10.0.0.5', allowSpecialUseAddresses: false });
    const id = publish('/client.json');
    t.equal(await source.find(id), undefined);
    t.same(refusals, [[id, 'mcp-client.test resolves to 10.0.0.5, a special-use address (RFC 6890)']]);
    t.equal(server.connections, 0);
  });

  t.test('cached for its max-age (injected clock), then fetched again and changes seen', async (t) => {
    const { server, source, advance, publish } = await setup(t, certificate);
    const id = publish('/client.json', {}, { 'cache-control': 'max-age=300' });
    await source.find(id);
    advance(299);
    t.equal((await source.find(id))?.clientName, 'Example <MCP> Client');
    t.equal(server.requestsFor('/client.json'), 1, 'fresh for 300 s: fetched once');
    publish('/client.json', { client_name: 'Renamed' }, { 'cache-control': 'max-age=300' });
    advance(1);
    t.equal((await source.find(id))?.clientName, 'Renamed', 'expired: fetched again');
    t.equal(server.requestsFor('/client.json'), 2);
  });

  t.test('a max-age below CLIENT_ID_METADATA_MIN_TTL is raised to it; no-store with a minimum of 0 is honoured', async (t) => {
    const { server, source, advance, publish } = await setup(t, certificate);
    const id = publish('/short.json', {}, { 'cache-control': 'max-age=5' });
    await source.find(id);
    advance(59);
    await source.find(id);
    t.equal(server.requestsFor('/short.json'), 1, 'kept for the 60 s minimum');

    const strict = await setup(t, certificate, { minTtl: 0 });
    const noStore = strict.publish('/no-store.json', {}, { 'cache-control': 'no-store' });
    await strict.source.find(noStore);
    await strict.source.find(noStore);
    t.equal(strict.server.requestsFor('/no-store.json'), 2, 'fetched for every lookup');
  });

  t.test('a failed fetch is reported once and not repeated for 10 s', async (t) => {
    const { server, source, refusals, advance, url, publish } = await setup(t, certificate);
    const id = url('/missing.json');
    for (let i = 0; i < 5; i += 1) t.equal(await source.find(id), undefined);
    t.equal(server.requestsFor('/missing.json'), 1, 'five lookups, one fetch');
    t.same(refusals, [[id, 'answered HTTP 404, not 200']], 'logged once');
    publish('/missing.json');
    advance(10);
    t.equal((await source.find(id))?.clientId, id, 'published since: found after the back-off');
    t.equal(server.requestsFor('/missing.json'), 2);
  });

  t.test('concurrent lookups of one URL share one fetch', async (t) => {
    const { server, source, publish } = await setup(t, certificate);
    const id = publish('/client.json');
    const clients = await Promise.all(Array.from({ length: 25 }, () => source.find(id)));
    t.ok(clients.every((client) => client?.clientId === id));
    t.equal(server.requestsFor('/client.json'), 1, '25 lookups, one fetch');
    t.equal(source.cached, 1);
  });

  t.test('one host making up URLs cannot take the fetch slots from other clients (at most 4 of its fetches at once)', async (t) => {
    const { server, source, refusals, publish } = await setup(t, certificate);
    // Another name of the document server (the test certificate's), whose documents never finish.
    const slowHost = `client.example:${server.port}`;
    for (let n = 0; n < 32; n += 1) server.serve(`/doc.json?n=${n}`, { headers: { 'content-type': 'application/json' }, stallAfter: 0 });
    // 32 lookups of unique URLs of one host whose answers never finish (they end when the server closes).
    for (let n = 0; n < 32; n += 1) void source.find(`https://${slowHost}/doc.json?n=${n}`);
    const id = publish('/client.json');
    t.equal((await source.find(id))?.clientId, id, 'a new document client is still served at once');
    t.same(
      refusals,
      Array.from({ length: 28 }, (_, n) => [
        `https://${slowHost}/doc.json?n=${n + 4}`,
        `4 fetches from ${slowHost} are already running or waiting`,
      ]),
      'the 28 lookups past the host’s bound are refused, and logged',
    );
  });

  t.test('a host that cannot be reached is not contacted again for 10 s, whatever the URL', async (t) => {
    const { source, refusals, resolutions, advance } = await setup(t, certificate);
    const down = (path: string) => `https://down.test${path}`;
    t.equal(await source.find(down('/client.json')), undefined);
    t.equal(await source.find(down('/client.json?n=1')), undefined);
    t.equal(await source.find(down('/other.json')), undefined);
    t.same(resolutions, ['down.test'], 'resolved once');
    t.same(refusals, [
      [down('/client.json'), 'down.test has no usable address'],
      [down('/client.json?n=1'), 'down.test is not contacted for 10 s after a failed fetch: down.test has no usable address'],
      [down('/other.json'), 'down.test is not contacted for 10 s after a failed fetch: down.test has no usable address'],
    ]);
    advance(10);
    t.equal(await source.find(down('/other.json')), undefined);
    t.same(resolutions, ['down.test', 'down.test'], 'tried again after the back-off');
  });
});
