import t from 'tap';
import { isSpecialUseAddress } from '../../src/fetch/special-use-addresses.js';

t.test('special-use addresses (RFC 6890) are refused; global unicast is not', async (t) => {
  const refused = [
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:8.8.8.8',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'ff02::1',
    '2001::1',
    '2001:db8::1',
    '2002:7f00:1::1',
    '3fff::1',
    'localhost',
    'not an address',
  ];
  const allowed = [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '100.128.0.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
  ];
  for (const address of refused) t.equal(isSpecialUseAddress(address), true, `${address} is refused`);
  for (const address of allowed) t.equal(isSpecialUseAddress(address), false, `${address} may be fetched`);
});
