import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import t from 'tap';
import { freePort } from '../../harness/ports.js';

const [ephemeralStart] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);

t.test('freePort: below the ephemeral range, never the same port twice, and free', async (t) => {
  const ports = [];
  for (let i = 0; i < 60; i += 1) ports.push(await freePort());
  t.equal(new Set(ports).size, ports.length, 'no port handed out twice');
  t.ok(
    ports.every((port) => port >= 20_000 && port < ephemeralStart!),
    `every port in [20000, ${ephemeralStart}): no outgoing connection or listener on port 0 can be given it`,
  );
  const server = createServer().listen(ports[0], '127.0.0.1');
  await once(server, 'listening');
  t.equal((server.address() as { port: number }).port, ports[0], 'the port can be bound');
  server.close();
});
