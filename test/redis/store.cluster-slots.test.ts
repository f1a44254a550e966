import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { SCRIPTS } from '../../src/store/redis.js';
import type { Store } from '../../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../../src/tokens/opaque.js';
import { newRefreshTokenHead } from '../../src/tokens/refresh-token-format.js';
import { nodeCommand } from '../../harness/redis-nodes.js';
import { clusterOfThisFile, clusterStore } from '../helpers/redis-stores.js';
import { RECORD, REDEEM } from '../suites/store.contract.js';
import { APPROVAL, DEVICE_START } from '../suites/store.devices.contract.js';
import { REGISTRATION } from '../suites/store.registrations.contract.js';

const LIFETIMES = { absoluteSeconds: 60, idleSeconds: 30 };

/** Every store operation, each path once: the ones with a replica wait too. */
async function everyOperation(store: Store): Promise<void> {
  const grantId = newGrantId();
  const code = mintOpaqueToken(grantId);
  await store.saveAuthorizationCode(code.ref, RECORD, 60);
  await store.redeemAuthorizationCode(code.ref, REDEEM);
  await store.redeemAuthorizationCode(code.ref, REDEEM);
  const redeemed = mintOpaqueToken(newGrantId());
  const head = newRefreshTokenHead(redeemed.ref.grantId, 0);
  await store.saveAuthorizationCode(redeemed.ref, RECORD, 60);
  await store.redeemAuthorizationCode(redeemed.ref, { ...REDEEM, firstRefreshToken: { digest: head.digest, lifetimes: LIFETIMES } });
  const first = newRefreshTokenHead(grantId, 0);
  await store.refreshTokenKey();
  await store.startRefreshFamily(grantId, { digest: first.digest, lifetimes: LIFETIMES });
  await store.readRefreshFamily(grantId);
  await store.rotateRefreshFamily(first, newRefreshTokenHead(grantId, 1).digest, 'sealed', { idleSeconds: 30, graceSeconds: 10 });
  await store.rotateRefreshFamily(first, newRefreshTokenHead(grantId, 1).digest, 'sealed', { idleSeconds: 30, graceSeconds: 10 });
  const legacy = store.legacyRefreshTokens;
  if (legacy) {
    const old = mintOpaqueToken(grantId);
    await legacy.readRefreshToken(old.ref);
    await legacy.rotateRefreshToken(old.ref, mintOpaqueToken(grantId).ref, 'sealed', { idleSeconds: 30, graceSeconds: 10 });
  }
  await store.revokeGrant(grantId, 60);
  await store.isGrantRevoked(grantId);
  await store.denylistAccessToken('jti-slot-check', 60);
  await store.isAccessTokenDenylisted('jti-slot-check');
  await store.attempts.reserveAttempt('username:alice', 5, 60);
  await store.attempts.keepAttempt('username:alice');
  await store.attempts.reserveAttempt('username:alice', 5, 60);
  await store.attempts.releaseAttempt('username:alice');
  await store.attempts.reserveAttempt('username:alice', 5, 60);
  await store.attempts.clearAttempts('username:alice');
  const registrations = store.clientRegistrations;
  await registrations.createClientRegistration(REGISTRATION, 60);
  await registrations.findClientRegistration(REGISTRATION.clientId);
  await registrations.touchClientRegistration(REGISTRATION.clientId, 60);
  await registrations.replaceClientRegistration(REGISTRATION, 60);
  await registrations.listClientRegistrations({ limit: 10 });
  await registrations.deleteClientRegistration(REGISTRATION.clientId);
  const indexed = { grantId, sub: 'alice', clientId: 'webapp', expiresAt: Date.now() + 60_000 };
  await store.grantIndex.indexGrant(indexed);
  await store.grantIndex.listGrants({ sub: 'alice' });
  await store.grantIndex.listGrants({ clientId: 'webapp' });
  await store.grantIndex.unindexGrants([indexed]);
  await store.consents.rememberConsent('alice', 'webapp', { scope: ['read'], audiences: [] }, 60);
  await store.consents.findConsent('alice', 'webapp');
  await store.consents.forgetConsent('alice');
  await store.consents.rememberConsent('bob', 'webapp', { scope: ['read'], audiences: [] }, 60);
  await store.consents.forgetConsentsToClient('webapp');
  const upstream = store.upstream;
  await upstream.saveUpstreamSignIn('state-digest', 'binding', 'sealed', 60);
  await upstream.takeUpstreamSignIn('state-digest', 'another');
  await upstream.takeUpstreamSignIn('state-digest', 'binding');
  await upstream.saveFederatedProfile('fed_slot-check', { email: 'a@example.com' }, 60, 'corp');
  await upstream.findFederatedProfile('fed_slot-check');
  await upstream.listFederatedUsers({ limit: 10 });
  await upstream.findFederatedUser('fed_slot-check');
  for (const holder of [{ sessionId: 'session-slot-check' }, { grantId }]) {
    await upstream.saveUpstreamTokens(holder, 'sealed', 60);
    await upstream.saveUpstreamTokens(holder, 'sealed', 'keep');
    await upstream.findUpstreamTokens(holder);
    await upstream.deleteUpstreamTokens(holder);
  }
  const device = mintOpaqueToken(newGrantId()).ref;
  await store.deviceCodes.startDeviceAuthorization(device, `user-code-${device.grantId}`, DEVICE_START);
  await store.deviceCodes.findDeviceAuthorization(`user-code-${device.grantId}`);
  await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5);
  await store.deviceCodes.decideDeviceAuthorization(device, { approved: APPROVAL });
  await store.deviceCodes.pollDeviceAuthorization(device, 'tv', 5);
  await store.revokeKnownGrant(grantId, 60);
  const entries = store.entries;
  await entries.createEntry('client', 'slot-check', { client_id: 'slot-check' });
  await entries.createEntry('client', 'slot-check', { client_id: 'slot-check' });
  await entries.replaceEntry('client', 'slot-check', { client_id: 'slot-check', client_name: 'S' }, 1);
  await entries.replaceEntry('client', 'slot-check', { client_id: 'slot-check' }, 1);
  await entries.getEntry('client', 'slot-check');
  await entries.listEntries('client', { limit: 10 });
  await entries.entriesVersion();
  await entries.readAllEntries();
  await entries.deleteEntry('client', 'slot-check', 1);
  await entries.deleteEntry('client', 'slot-check');
  await store.ping();
}

/** MONITOR quotes arguments the way redis-cli prints them (sdscatrepr): undo it. */
function unquoted(arg: string): string {
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };
  return arg.replace(/\\(x[0-9a-f]{2}|.)/g, (_, escape: string) =>
    escape.length === 3 ? String.fromCharCode(parseInt(escape.slice(1), 16)) : (escapes[escape] ?? escape),
  );
}

/** Records the commands every primary executes (MONITOR) while `work` runs. */
async function monitored(t: Test, ports: number[], work: () => Promise<void>): Promise<string[][]> {
  const seen: string[][] = [];
  const monitors = await Promise.all(
    ports.map(async (port) => {
      const monitor = await new Redis({ port, host: '127.0.0.1', lazyConnect: true }).monitor();
      monitor.on('monitor', (_time: string, args: string[]) => seen.push(args.map(unquoted)));
      return monitor;
    }),
  );
  t.teardown(() => Promise.all(monitors.map((monitor) => monitor.disconnect())));
  await work();
  await new Promise((r) => setTimeout(r, 200));
  return seen;
}

t.test('on a cluster, every script the store runs declares keys of one slot, under the prefix', async (t) => {
  const cluster = await clusterOfThisFile();
  const primaries = (await cluster.primaries()).map((node) => node.port);
  const plain = await clusterStore(t);
  // What is checked here is the keys, not the time: a replica acknowledges slowly while MONITOR
  // streams every command on a loaded host (CI saw 500 ms pass), so it gets 5 s.
  const acknowledged = await clusterStore(t, { replicaAck: { minReplicas: 1, timeoutMs: 5000 }, commandTimeoutMs: 6000 });
  const commands = await monitored(t, primaries, async () => {
    await everyOperation(plain.store);
    await everyOperation(acknowledged.store);
  });
  const nameOf = new Map(
    Object.entries(SCRIPTS).flatMap(([name, { lua }]) => [
      [lua, name],
      [createHash('sha1').update(lua).digest('hex'), name],
    ]),
  );
  const scripts = commands.filter(([command]) => command === 'eval' || command === 'evalsha');
  const names = new Set<string>();
  const slotOf = async (key: string) => Number(await nodeCommand(primaries[0] as number, 'CLUSTER', 'KEYSLOT', key));
  for (const [command, body, count, ...rest] of scripts) {
    const keys = rest.slice(0, Number(count));
    if (!keys.every((key) => key.startsWith(plain.keyPrefix) || key.startsWith(acknowledged.keyPrefix))) continue;
    const name = nameOf.get(body as string) ?? 'unknown script';
    names.add(`${name} (${command})`);
    const slots = new Set(await Promise.all(keys.map(slotOf)));
    t.equal(slots.size, 1, `${name}: ${keys.length} keys in one slot`);
  }
  const registered = Object.keys(SCRIPTS);
  t.same(
    [...new Set([...names].map((entry) => entry.split(' ')[0]))].sort(),
    registered.sort(),
    'every registered script ran, none unknown',
  );
  for (const name of [
    'redeemAuthorizationCode',
    'rotateRefreshFamily',
    'refreshTokenKey',
    'revokeGrant',
    'revokeKnownGrant',
    'pollDeviceAuthorization',
    'createEntry',
    'replaceEntry',
    'deleteEntry',
  ]) {
    t.ok(names.has(`${name} (eval)`), `${name} also ran as EVAL in a pipeline with WAIT`);
  }
  t.ok(
    commands.some(([command, replicas]) => command === 'wait' && replicas === '1'),
    'WAIT 1 followed the acknowledged writes',
  );
});

t.test('keys outside a grant spread over the slots: no global hash tag', async (t) => {
  const cluster = await clusterOfThisFile();
  const { store, keyPrefix } = await clusterStore(t);
  for (let i = 0; i < 60; i += 1) {
    const grantId = newGrantId();
    await store.saveAuthorizationCode(mintOpaqueToken(grantId).ref, RECORD, 60);
    await store.denylistAccessToken(`jti-${i}-${grantId}`, 60);
    await store.attempts.reserveAttempt(`username:user-${i}`, 5, 60);
    await store.rememberDpopProof(`jkt-${i}-${grantId}`, 'jti', 60);
    await store.rememberClientAssertion(`client-${i}-${grantId}`, 'jti', 60);
    await store.deviceCodes.startDeviceAuthorization(mintOpaqueToken(grantId).ref, `user-code-${i}-${grantId}`, DEVICE_START);
  }
  for (const primary of await cluster.primaries()) {
    for (const [kind, pattern] of [
      ['codes', `${keyPrefix}{*}:code:*`],
      ['denylisted tokens', `${keyPrefix}jti:*`],
      ['attempt counters', `${keyPrefix}attempts:*`],
      ['DPoP proofs', `${keyPrefix}dpop:*`],
      ['client assertions', `${keyPrefix}assertion:*`],
      ['device user codes', `${keyPrefix}device-user:*`],
      ['device authorizations', `${keyPrefix}{*}:device:*`],
    ] as const) {
      const [, keys] = (await nodeCommand(primary.port, 'SCAN', '0', 'MATCH', pattern, 'COUNT', '10000')) as [string, string[]];
      t.ok(keys.length > 0 && keys.length < 60, `primary ${primary.port} holds ${keys.length} of the 60 ${kind}`);
    }
  }
});

t.test("the admin API's entries share the one {entries} slot, with their channel", async (t) => {
  const cluster = await clusterOfThisFile();
  const { store, keyPrefix } = await clusterStore(t);
  await store.entries.createEntry('client', 'web', { client_id: 'web' });
  await store.entries.createEntry('user', 'alice', { username: 'alice' });
  const port = (await cluster.primaries())[0]?.port as number;
  const slotOf = async (key: string) => Number(await nodeCommand(port, 'CLUSTER', 'KEYSLOT', key));
  const expected = Number(await nodeCommand(port, 'CLUSTER', 'KEYSLOT', 'entries'));
  const names = ['kind:client', 'ids:client', 'kind:user', 'ids:user', 'version', 'changes'].map((name) => `${keyPrefix}{entries}:${name}`);
  t.same(
    await Promise.all(names.map(slotOf)),
    names.map(() => expected),
    'the slot of the tag "entries"',
  );
  const raw = await (await clusterStore(t, { keyPrefix })).raw();
  for (const key of names.slice(0, 5)) t.equal(await raw.pttl(key), -1, `${key}: configuration, no TTL`);
});
