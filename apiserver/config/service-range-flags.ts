/**
 * `--service-cluster-ip-range` and `--service-node-port-range`, as kube-apiserver reads them:
 * - the cluster IP range is one CIDR, or two of different IP families (dual-stack, primary first); an
 *   empty value is Kubernetes' default `10.0.0.0/24`; each range must leave addresses to allocate;
 * - the node port range is `<base>-<max>` (inclusive), `<base>+<count>` or one port, within 1..65535.
 * Errors are FlagErrors (exit 2).
 */
import { parseServiceRange, type ServiceIPRange } from '../registry/kinds/core/service-allocation/ip-range.js';
import { FlagError } from './flag-error.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export interface NodePortRangeConfig {
  readonly base: number;
  readonly size: number;
}

export function parseServiceClusterIPRanges(value: string): ServiceIPRange[] {
  const text = value.trim() === '' ? DEFAULT_SERVICE_CLUSTER_IP_RANGE : value;
  const parts = text.split(',').map((p) => p.trim());
  const bad = (why: string): FlagError => new FlagError(`invalid value "${value}" for flag --service-cluster-ip-range: ${why}`);
  if (parts.length > 2) throw bad('may hold at most two CIDRs, one per IP family');
  const ranges = parts.map((p) => {
    const r = parseServiceRange(p);
    if (r === undefined) throw bad(`"${p}" is not a CIDR with addresses to allocate`);
    return r;
  });
  if (ranges.length === 2 && ranges[0]!.family === ranges[1]!.family) throw bad('the two CIDRs must be of different IP families');
  return ranges;
}

export function parseNodePortRange(value: string): NodePortRangeConfig {
  const text = value.trim() === '' ? DEFAULT_SERVICE_NODE_PORT_RANGE : value.trim();
  const bad = (): FlagError => new FlagError(`invalid value "${value}" for flag --service-node-port-range: want <base>-<max>, <base>+<count> or one port, within 1-65535`);
  const m = /^(\d+)(?:([-+])(\d+))?$/.exec(text);
  if (m === null) throw bad();
  const base = Number(m[1]);
  let size = 1;
  if (m[2] === '-') size = Number(m[3]) - base + 1;
  else if (m[2] === '+') size = Number(m[3]) + 1;
  if (base < 1 || size < 1 || base + size - 1 > 65535) throw bad();
  return { base, size };
}
