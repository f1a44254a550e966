import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { isIPv6 } from 'node:net';
import type { Teardown } from '../../harness/process.js';

/**
 * A DNS server on 127.0.0.1 over UDP (RFC 1035 §4), answering A and AAAA questions from a table:
 * a name not in the table is NXDOMAIN, a name without records of the type asked is an answer
 * with none. `silent`: it reads every question and answers none (a name server that is down).
 * Enough for c-ares (node:dns's Resolver) to resolve against it; the questions are counted.
 */
export interface DnsServer {
  /** `127.0.0.1:<port>`, for Resolver.setServers. */
  readonly address: string;
  readonly questions: string[];
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = address.includes('::') ? [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)] : groups(address);
  return Buffer.from(all.flatMap((group) => [Number.parseInt(group, 16) >> 8, Number.parseInt(group, 16) & 0xff]));
}

function answer(query: Buffer, table: Record<string, readonly string[]>, questions: string[]): Buffer {
  // The question: labels from byte 12, then QTYPE and QCLASS.
  const labels: string[] = [];
  let at = 12;
  for (let length = query[at] ?? 0; length > 0; length = query[at] ?? 0) {
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  const questionEnd = at + 5;
  const type = query.readUInt16BE(at + 1);
  const name = labels.join('.').toLowerCase();
  questions.push(`${name} ${type === TYPE_AAAA ? 'AAAA' : type === TYPE_A ? 'A' : type}`);
  const records = table[name];
  const addresses = (records ?? []).filter((a) => (type === TYPE_AAAA ? isIPv6(a) : type === TYPE_A && !isIPv6(a)));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the ID
  header.writeUInt16BE(0x8180 | (records === undefined ? 3 : 0), 2); // a response, recursion available; NXDOMAIN or no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const rrs = addresses.map((address) => {
    const data = type === TYPE_AAAA ? ipv6Bytes(address) : Buffer.from(address.split('.').map(Number));
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...rrs]);
}

export async function startDnsServer(
  t: Teardown,
  table: Record<string, readonly string[]>,
  options: { silent?: boolean } = {},
): Promise<DnsServer> {
  const socket: Socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (query, peer) => {
    if (options.silent) return void questions.push('(unanswered)');
    socket.send(answer(query, table, questions), peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  t.teardown(() => socket.close());
  return { address: `127.0.0.1:${socket.address().port}`, questions };
}
