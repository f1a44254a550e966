import { lookup } from 'node:dns/promises';
import t from 'tap';
import { guardedLookup } from '../../src/fetch/guard.js';
import { dnsResolver, publicDnsResolver, type Resolver, resolverFor, systemResolver } from '../../src/fetch/resolver.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { occupyThreadPool } from '../helpers/thread-pool.js';

const TABLE = {
  'jwks.example': ['203.0.113.7', '2001:db8::7'],
  'v6only.example': ['2001:db8:0:1::9'],
  'empty.example': [],
};

t.test('dnsResolver: A and AAAA records from the name server, IPv4 first', async (t) => {
  const dns = await startDnsServer(t, TABLE);
  const resolve = dnsResolver({ servers: [dns.address] });
  t.same(await resolve('jwks.example'), [
    { address: '203.0.113.7', family: 4 },
    { address: '2001:db8::7', family: 6 },
  ]);
  t.same(await resolve('v6only.example'), [{ address: '2001:db8:0:1::9', family: 6 }]);
  t.same(dns.questions.sort(), ['jwks.example A', 'jwks.example AAAA', 'v6only.example A', 'v6only.example AAAA']);
});

t.test('dnsResolver: a name without addresses, unknown, or unanswered is an error with its code', async (t) => {
  const dns = await startDnsServer(t, TABLE);
  const codeOf = (resolve: Resolver, name: string) =>
    resolve(name).then(
      () => 'resolved',
      (err: NodeJS.ErrnoException) => err.code,
    );
  t.equal(await codeOf(dnsResolver({ servers: [dns.address] }), 'nowhere.example'), 'ENOTFOUND');
  t.equal(await codeOf(dnsResolver({ servers: [dns.address] }), 'empty.example'), 'ENODATA');
  const silent = await startDnsServer(t, TABLE, { silent: true });
  const started = Date.now();
  t.equal(await codeOf(dnsResolver({ servers: [silent.address], timeoutMs: 200, tries: 1 }), 'jwks.example'), 'ETIMEOUT');
  t.ok(Date.now() - started < 2000, 'given up after its timeout');
  t.ok(silent.questions.length >= 2, 'both questions were sent');
});

t.test('dnsResolver: localhost names are loopback without asking (RFC 6761 §6.3)', async (t) => {
  const dns = await startDnsServer(t, TABLE);
  const resolve = dnsResolver({ servers: [dns.address] });
  const loopback = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
  for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost']) t.same(await resolve(name), loopback, name);
  t.same(dns.questions, [], 'no name server asked');
  t.same(await resolve('localhost.example').catch((err: NodeJS.ErrnoException) => err.code), 'ENOTFOUND', 'only the localhost domain');
});

t.test('dnsResolver does not wait for libuv’s thread pool; getaddrinfo does', async (t) => {
  const dns = await startDnsServer(t, TABLE);
  const resolve = dnsResolver({ servers: [dns.address] });
  await resolve('jwks.example'); // c-ares' first use, outside the measurement
  const pool = occupyThreadPool(600);
  let systemDone = false;
  const system = lookup('localhost').then(() => void (systemDone = true));
  t.same(await resolve('jwks.example'), [
    { address: '203.0.113.7', family: 4 },
    { address: '2001:db8::7', family: 6 },
  ]);
  t.equal(pool.settled(), false, 'resolved while every pool thread was busy');
  t.equal(systemDone, false, 'getaddrinfo, on the pool, had not answered yet');
  await Promise.all([pool.done, system]);
  t.equal(systemDone, true);
});

t.test('resolverFor: the DNS servers for fetches that refuse special-use addresses, getaddrinfo for the others', async (t) => {
  const injected: Resolver = async () => [{ address: '192.0.2.1', family: 4 }];
  t.equal(resolverFor({ allowSpecialUseAddresses: true }), systemResolver, 'the operator’s private names: /etc/hosts, search domains');
  t.equal(resolverFor({ allowSpecialUseAddresses: false }), publicDnsResolver, 'names a client gives: the DNS servers, off the pool');
  t.equal(resolverFor({ allowSpecialUseAddresses: false, resolve: injected }), injected, 'an injected resolver wins');
});

t.test('guardedLookup over dnsResolver: a timeout is "could not be resolved", never a connection', async (t) => {
  const silent = await startDnsServer(t, TABLE, { silent: true });
  const policy = {
    allowHttp: false,
    allowSpecialUseAddresses: false,
    timeoutMs: 1000,
    maxBytes: 1024,
    resolve: dnsResolver({ servers: [silent.address], timeoutMs: 100, tries: 1 }),
  };
  const outcome = await new Promise<{ message: string; address: string }>((resolve) =>
    guardedLookup(policy)('jwks.example', {}, (err, address) => resolve({ message: err?.message ?? '', address: String(address) })),
  );
  t.same(outcome, { message: 'jwks.example could not be resolved', address: '' });
});
