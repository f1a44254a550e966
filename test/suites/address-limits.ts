import type { Test } from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { hashClientSecret } from '../../src/clients/secret.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { NATIVE_CLIENT, withRegistration } from '../helpers/registration.js';
import { RESOURCES } from '../helpers/resource-fixtures.js';
import { basic, buildTestServer, FORM_HEADERS, form } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * The per-address limits (LOGIN_MAX_FAILURES_PER_IP = 20, REGISTRATION_RATE_LIMIT = 20 by
 * default) count the address TRUST_PROXY decides, an IPv6 client by its /IPV6_LIMIT_PREFIX.
 */

const PASSWORD_CLIENT = {
  client_id: 'first-party',
  client_secret_hash: hashClientSecret(WEB_SECRET),
  grant_types: ['password'],
  scope: 'read',
};

/** A request as it arrives: from `peer` (the connection), with the X-Forwarded-For the proxies wrote, if any. */
interface Arrival {
  readonly peer: string;
  readonly forwardedFor?: string;
}

async function server(t: Test, open: OpenStore, env: Record<string, string> = {}) {
  const fileClients = ClientRegistry.fromMetadata([...AUTHORIZE_CLIENTS, PASSWORD_CLIENT]);
  const built = await buildTestServer(t, {
    clientRegistry: fileClients,
    users: testUsers(30),
    resources: RESOURCES,
    store: await open(t),
    env: { DYNAMIC_CLIENT_REGISTRATION: 'open', ...env },
  });
  const { register } = withRegistration(built.app, built, fileClients);
  const forwarded = ({ forwardedFor }: Arrival) => (forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor });
  /** A wrong password for `username` at the token endpoint: 400 when checked, 429 when the address is at its limit. */
  const wrongPassword = async (username: string, arrival: Arrival) =>
    (
      await built.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, authorization: basic('first-party', WEB_SECRET), ...forwarded(arrival) },
        payload: form({ grant_type: 'password', username, password: 'Summer2026!' }),
        remoteAddress: arrival.peer,
      })
    ).statusCode;
  const registration = async (arrival: Arrival) => (await register(NATIVE_CLIENT, forwarded(arrival), arrival.peer)).statusCode;
  /** One request after the other, so the statuses come in order. */
  const inTurn = async (count: number, request: (i: number) => Promise<number>) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 1) statuses.push(await request(i));
    return statuses;
  };
  return { wrongPassword, registration, inTurn };
}

const times = (count: number, status: number) => new Array<number>(count).fill(status);

export function addressLimitsSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: TRUST_PROXY=1, one proxy that appends: the right-most X-Forwarded-For entry is the client`, async (t) => {
    const { wrongPassword, registration, inTurn } = await server(t, open, { TRUST_PROXY: '1' });
    // The client writes X-Forwarded-For: 192.0.2.N; the proxy (10.0.0.2) appends the peer it saw.
    const attacker = (i: number) => ({ peer: '10.0.0.2', forwardedFor: `192.0.2.${i}, 203.0.113.9` });
    t.same(await inTurn(24, (i) => wrongPassword(`user-${i}`, attacker(i))), [...times(20, 400), ...times(4, 429)], 'sign-in');
    t.same(await inTurn(25, (i) => registration(attacker(i))), [...times(20, 201), ...times(5, 429)], 'registration');
    t.equal(await wrongPassword('bob', { peer: '10.0.0.2', forwardedFor: '203.0.113.9' }), 429, 'the same client without a made-up entry');
    t.equal(
      await wrongPassword('bob', { peer: '10.0.0.2', forwardedFor: '203.0.113.9, 203.0.113.10' }),
      400,
      'the right-most entry is the client',
    );
    t.equal(await registration({ peer: '10.0.0.2', forwardedFor: '203.0.113.10' }), 201, 'another client has its own count');
  });

  t.test(`${name}: TRUST_PROXY=2, two proxies that append: the second entry from the right is the client`, async (t) => {
    const { registration, inTurn } = await server(t, open, { TRUST_PROXY: '2' });
    const attacker = (i: number) => ({ peer: '10.0.0.2', forwardedFor: `192.0.2.${i}, 203.0.113.9, 10.0.0.3` });
    t.same(await inTurn(25, (i) => registration(attacker(i))), [...times(20, 201), ...times(5, 429)]);
    t.equal(await registration({ peer: '10.0.0.2', forwardedFor: '203.0.113.9, 10.0.0.4' }), 429);
    t.equal(await registration({ peer: '10.0.0.2', forwardedFor: '203.0.113.9, 203.0.113.10, 10.0.0.3' }), 201);
  });

  t.test(`${name}: TRUST_PROXY=<addresses and ranges>: the right-most entry that is not a listed proxy is the client`, async (t) => {
    const { wrongPassword, registration, inTurn } = await server(t, open, { TRUST_PROXY: '10.0.0.0/8, fd00::1' });
    const attacker = (i: number) => ({ peer: '10.0.0.2', forwardedFor: `192.0.2.${i}, 203.0.113.9, 10.0.0.3, fd00::1` });
    t.same(await inTurn(24, (i) => wrongPassword(`user-${i}`, attacker(i))), [...times(20, 400), ...times(4, 429)], 'sign-in');
    t.same(await inTurn(25, (i) => registration(attacker(i))), [...times(20, 201), ...times(5, 429)], 'registration');
    t.equal(await registration({ peer: '::ffff:10.0.0.7', forwardedFor: '203.0.113.9' }), 429, 'a listed proxy seen as IPv4-mapped IPv6');
    t.equal(await registration({ peer: 'fd00::1', forwardedFor: '203.0.113.9' }), 429, 'an IPv6 proxy');
    const direct = (i: number) => ({ peer: '198.51.100.7', forwardedFor: `192.0.2.${i}` });
    t.same(
      await inTurn(21, (i) => registration(direct(i))),
      [...times(20, 201), 429],
      'a peer that is not a listed proxy is the client, whatever it forwards',
    );
  });

  t.test(`${name}: no TRUST_PROXY: X-Forwarded-For is not read`, async (t) => {
    const { registration, inTurn } = await server(t, open);
    t.same(await inTurn(21, (i) => registration({ peer: '203.0.113.9', forwardedFor: `192.0.2.${i}` })), [...times(20, 201), 429]);
  });

  t.test(`${name}: IPv6 clients count by their /64 (IPV6_LIMIT_PREFIX), IPv4-mapped ones as IPv4`, async (t) => {
    const { wrongPassword, registration, inTurn } = await server(t, open);
    // 19 addresses of one /64, as one host may choose them (RFC 8981).
    const host = (i: number) => ({ peer: `2001:db8:1:2:${(i % 19) + 1}::${i}` });
    t.same(await inTurn(25, (i) => registration(host(i))), [...times(20, 201), ...times(5, 429)], 'registration');
    t.same(await inTurn(24, (i) => wrongPassword(`user-${i}`, host(i))), [...times(20, 400), ...times(4, 429)], 'sign-in');
    t.equal(await registration({ peer: '2001:db8:1:3::1' }), 201, 'the next /64 has its own count');
    t.equal(await wrongPassword('bob', { peer: '2001:db8:1:3::1' }), 400);
    t.same(
      await inTurn(21, (i) => registration({ peer: i % 2 === 0 ? '::ffff:192.0.2.7' : '192.0.2.7' })),
      [...times(20, 201), 429],
      'an IPv4 client seen through a dual-stack socket is the same client',
    );
  });

  t.test(`${name}: IPV6_LIMIT_PREFIX=128 counts every IPv6 address alone; 48 a whole site; behind a proxy too`, async (t) => {
    const alone = await server(t, open, { IPV6_LIMIT_PREFIX: '128' });
    t.same(await alone.inTurn(25, (i) => alone.registration({ peer: `2001:db8:1:2::${i + 1}` })), times(25, 201));
    const site = await server(t, open, { IPV6_LIMIT_PREFIX: '48', TRUST_PROXY: '1' });
    const proxied = (i: number) => ({ peer: '10.0.0.2', forwardedFor: `2001:db8:1:${i}::1` });
    t.same(await site.inTurn(21, (i) => site.registration(proxied(i))), [...times(20, 201), 429]);
  });
}
