/** parseIP: the sloppy IPv4 form, IPv6 read through netip, IPv4-mapped addresses counted as IPv4. */
import { endpointIPProblems, parseIP } from './endpoint-ip.js';

test.each([
  ['10.0.0.1', [10, 0, 0, 1], true],
  ['010.000.0.01', [10, 0, 0, 1], true],
  ['::ffff:1.2.3.4', [1, 2, 3, 4], true],
  ['::FFFF:102:304', [1, 2, 3, 4], true],
  ['2001:db8::1', [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], false],
  ['1::2:3.4.5.6', [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 4, 5, 6], false],
  ['::', new Array<number>(16).fill(0), false],
])('%s', (text, bytes, v4) => {
  expect(parseIP(text)).toEqual({ bytes, v4 });
});

test.each(['', '1.2.3', '1.2.3.256', 'fe80::1%eth0', '1:2:3:4:5:6:7:8:9', '::ffff:01.2.3.4', '1::2::3', 'a.b.c.d'])('%j is not an IP', (text) => {
  expect(parseIP(text)).toBeUndefined();
});

test('a mapped loopback address is an IPv4 loopback address', () => {
  expect(endpointIPProblems('::ffff:127.0.0.1')).toEqual(['may not be in the loopback range (127.0.0.0/8, ::1/128)']);
  expect(endpointIPProblems('nope')).toEqual(['must be a valid IP address']);
});
