import { cidrFamily } from './cidr.js';

test.each([
  ['10.244.0.0/24', 4],
  ['010.244.000.0/16', 4],
  ['0.0.0.0/0', 4],
  ['fd00:10:244::/64', 6],
  ['::/0', 6],
  ['10.0.0.0', undefined],
  ['10.0.0.0/33', undefined],
  ['256.0.0.0/8', undefined],
  ['10.0.0/8', undefined],
  ['fd00::/129', undefined],
  ['fe80::1%eth0/64', undefined],
  ['10.0.0.0/x', undefined],
  ['', undefined],
])('%s -> %s', (text, family) => {
  expect(cidrFamily(text)).toBe(family);
});
