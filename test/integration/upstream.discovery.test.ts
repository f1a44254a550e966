import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { authorizeUrl, InjectBrowser } from '../helpers/browser-flow.js';
import { capturedLogger } from '../helpers/logs.js';
import { OIDC_CLIENTS, oidcUsers } from '../helpers/oidc-fixtures.js';
import { buildTestServer } from '../helpers/server.js';
import { ACCOUNTS, callbackUrl, codeRequest, PROVIDER_IDS } from '../helpers/upstream-fixtures.js';
import { startUpstreamOidc, UPSTREAM_CLIENT_SECRET, type UpstreamOidc } from '../helpers/upstream-oidc.js';

/**
 * Upstream discovery starts with the server (src/app.ts, UpstreamProviders.discoverAll), in
 * the background: node-oidc-provider sees the discovery request before any sign-in, after a
 * reload of the providers file too; a provider that hangs or is down holds up neither start
 * nor readiness, and its failure is one warning without a secret.
 */

const DISCOVERY = '/.well-known/openid-configuration';

async function upstream(t: Test): Promise<UpstreamOidc> {
  return startUpstreamOidc(t, { accounts: [ACCOUNTS.ada], redirectUris: PROVIDER_IDS.map(callbackUrl) });
}

async function server(t: Test, registry: ProviderRegistry, logger?: unknown) {
  return buildTestServer(t, { clients: OIDC_CLIENTS, users: oidcUsers(), providerRegistry: registry, ...(logger ? { logger } : {}) });
}

/** Waits (up to 5 s) until `count()` reaches `expected`; what it reached. */
async function reach(count: () => number, expected: number): Promise<number> {
  const deadline = Date.now() + 5000;
  while (count() < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return count();
}

/** A TCP listener that takes connections and never answers: a provider that hangs. */
async function hangingProvider(t: Test): Promise<{ issuer: string; received: () => string }> {
  const sockets = new Set<Socket>();
  let received = '';
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    listener.close();
  });
  return { issuer: `http://127.0.0.1:${(listener.address() as { port: number }).port}`, received: () => received };
}

t.test('the discovery request reaches the provider when the server is ready, before any sign-in', async (t) => {
  const up = await upstream(t);
  const { app } = await server(t, ProviderRegistry.fromEntries([up.providerEntry('corp')], 'providers', { allowHttp: true }));
  t.equal(up.requestsTo(DISCOVERY).length, 0, 'built, not ready: nothing yet');
  await app.ready();
  t.equal(await reach(() => up.requestsTo(DISCOVERY).length, 1), 1, 'discovered once, in the background');
  t.same(
    up.requests.map((r) => r.path),
    [DISCOVERY],
    'and nothing else: no sign-in has begun',
  );
  const page = await new InjectBrowser(app).get(authorizeUrl(codeRequest().params));
  t.match(page.body, 'Continue with Upstream corp', 'the login page');
  t.equal(up.requestsTo(DISCOVERY).length, 1, 'the first sign-in fetched nothing again');
});

t.test('a reload of the providers file discovers its providers again, in the background', async (t) => {
  const up = await upstream(t);
  const registry = ProviderRegistry.fromEntries([up.providerEntry('corp')], 'providers', { allowHttp: true });
  const { app } = await server(t, registry);
  await app.ready();
  t.equal(await reach(() => up.requestsTo(DISCOVERY).length, 1), 1);
  registry.replace(ProviderRegistry.fromEntries([up.providerEntry('corp'), up.providerEntry('other')], 'providers', { allowHttp: true }));
  t.equal(await reach(() => up.requestsTo(DISCOVERY).length, 3), 3, 'both entries of the new file');
  await app.close();
  registry.replace(ProviderRegistry.fromEntries([up.providerEntry('corp')], 'providers', { allowHttp: true }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(up.requestsTo(DISCOVERY).length, 3, 'a closed server discovers nothing');
});

t.test('a provider that hangs holds up neither start nor readiness', async (t) => {
  const hanging = await hangingProvider(t);
  const entry = {
    id: 'corp',
    type: 'oidc',
    name: 'Hanging SSO',
    issuer: hanging.issuer,
    client_id: 'ours',
    client_secret: UPSTREAM_CLIENT_SECRET,
  };
  const { app } = await server(t, ProviderRegistry.fromEntries([entry], 'providers', { allowHttp: true }));
  const started = performance.now();
  await app.ready();
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  const elapsed = performance.now() - started;
  t.equal(ready.statusCode, 200);
  t.ok(elapsed < 1000, `ready and answering /readyz in ${Math.round(elapsed)} ms`);
  await reach(() => (hanging.received().includes('\r\n\r\n') ? 1 : 0), 1);
  t.match(hanging.received(), /^GET \/\.well-known\/openid-configuration HTTP\/1\.1\r\n/, 'the discovery request went out');
});

t.test('a provider that is down: one warning naming it, without its secret; its next use tries again', async (t) => {
  const up = await upstream(t);
  await up.stop();
  const log = capturedLogger('info');
  const { app, clock } = await server(
    t,
    ProviderRegistry.fromEntries([up.providerEntry('corp')], 'providers', { allowHttp: true }),
    log.logger,
  );
  await app.ready();
  t.equal(await reach(() => log.lines().filter((line) => line.includes('discovery failed')).length, 1), 1);
  const warning = JSON.parse(log.lines().find((line) => line.includes('discovery failed')) as string) as Record<string, unknown>;
  t.match(warning, {
    level: 40,
    provider: 'corp',
    err: { message: `Upstream corp could not be discovered at ${up.issuer}`, cause: String },
    msg: 'identity provider discovery failed; tried again at its next use',
  });
  t.notMatch(log.text(), UPSTREAM_CLIENT_SECRET);
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'ready all the same');
  await up.start();
  clock.now += 5000;
  await new InjectBrowser(app).get(authorizeUrl(codeRequest().params));
  t.equal(up.requestsTo(DISCOVERY).length, 1, 'the login page, once the provider is back, discovered it');
});
