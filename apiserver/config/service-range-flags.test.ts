/** `--service-cluster-ip-range` and `--service-node-port-range`: defaults, dual-stack, and the exit-2 errors. */
import { FlagError } from './flag-error.js';
import { parseNodePortRange, parseServiceClusterIPRanges } from './service-range-flags.js';

describe('--service-cluster-ip-range', () => {
  it('defaults to 10.0.0.0/24 and takes one CIDR per family', () => {
    expect(parseServiceClusterIPRanges('').map((r) => [r.cidr, r.family, r.size])).toEqual([['10.0.0.0/24', 'IPv4', 254]]);
    expect(parseServiceClusterIPRanges('fd00::/108, 10.96.0.0/12').map((r) => r.cidr)).toEqual(['fd00::/108', '10.96.0.0/12']);
  });

  it.each([
    ['10.0.0.0/24,10.1.0.0/24', 'the two CIDRs must be of different IP families'],
    ['10.0.0.0/24,fd00::/64,10.2.0.0/24', 'may hold at most two CIDRs, one per IP family'],
    ['10.0.0.0', '"10.0.0.0" is not a CIDR with addresses to allocate'],
    ['10.0.0.0/31', '"10.0.0.0/31" is not a CIDR with addresses to allocate'],
  ])('%s is refused', (value, why) => {
    expect(() => parseServiceClusterIPRanges(value)).toThrow(new FlagError(`invalid value "${value}" for flag --service-cluster-ip-range: ${why}`));
  });
});

describe('--service-node-port-range', () => {
  it('reads base-max, base+count and one port; defaults to 30000-32767', () => {
    expect(parseNodePortRange('')).toEqual({ base: 30000, size: 2768 });
    expect(parseNodePortRange('20000-20009')).toEqual({ base: 20000, size: 10 });
    expect(parseNodePortRange('20000+9')).toEqual({ base: 20000, size: 10 });
    expect(parseNodePortRange('443')).toEqual({ base: 443, size: 1 });
  });

  it.each(['30000-20000', '0-10', '65000-70000', 'ports'])('%s is refused', (value) => {
    expect(() => parseNodePortRange(value)).toThrow(FlagError);
  });
});
