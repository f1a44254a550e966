import t from 'tap';
import { addressLimitKey } from '../../src/shared/address-limit-key.js';

t.test('addressLimitKey: what a per-address limit counts a client under', async (t) => {
  t.test('IPv4 as is', async (t) => {
    t.equal(addressLimitKey('192.0.2.1', 64), '192.0.2.1');
    t.equal(addressLimitKey('198.51.100.255', 128), '198.51.100.255');
  });

  t.test('IPv6 by its network of IPV6_LIMIT_PREFIX bits, however it is written', async (t) => {
    const network = '2001:db8:1:2:0:0:0:0/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:a:b:c:d',
      '2001:db8:1:2:0:0:0:1',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2::192.0.2.1',
    ])
      t.equal(addressLimitKey(address, 64), network, address);
    t.equal(addressLimitKey('2001:db8:1:3::1', 64), '2001:db8:1:3:0:0:0:0/64', 'the next /64 is another key');
    t.equal(addressLimitKey('2001:db8:1:2::1', 48), '2001:db8:1:0:0:0:0:0/48');
    t.equal(addressLimitKey('2001:db8:1:2::1', 56), '2001:db8:1:0:0:0:0:0/56');
    t.equal(addressLimitKey('2001:db8:1:2ff::1', 56), '2001:db8:1:200:0:0:0:0/56', 'a prefix inside a group');
    t.equal(addressLimitKey('2001:db8:1:2::1', 128), '2001:db8:1:2:0:0:0:1/128', '128: every address alone');
    t.equal(addressLimitKey('::1', 64), '0:0:0:0:0:0:0:0/64');
    t.equal(addressLimitKey('::', 128), '0:0:0:0:0:0:0:0/128');
    t.equal(addressLimitKey('fe80::1:2:3:4', 32), 'fe80:0:0:0:0:0:0:0/32');
  });

  t.test('IPv4-mapped IPv6 as the IPv4 address it carries', async (t) => {
    t.equal(addressLimitKey('::ffff:192.0.2.1', 64), '192.0.2.1');
    t.equal(addressLimitKey('::FFFF:192.0.2.1', 128), '192.0.2.1');
    t.equal(addressLimitKey('::ffff:c000:201', 64), '192.0.2.1', 'in hex');
    t.equal(addressLimitKey('0:0:0:0:0:ffff:c000:0201', 64), '192.0.2.1', 'written out');
    t.equal(addressLimitKey('::192.0.2.1', 128), '0:0:0:0:0:0:c000:201/128', 'IPv4-compatible is not mapped');
  });

  t.test('anything else is its own key', async (t) => {
    t.equal(addressLimitKey('unknown', 64), 'unknown');
    t.equal(addressLimitKey('', 64), '');
    t.equal(addressLimitKey('192.0.2.1:443', 64), '192.0.2.1:443');
  });
});
