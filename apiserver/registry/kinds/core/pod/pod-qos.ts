/**
 * A pod's quality-of-service class, as Kubernetes computes it on create (qos.ComputePodQOS, without the
 * alpha pod-level resources): only cpu and memory count, and only positive quantities.
 * - BestEffort: no container (init containers included) requests or limits cpu or memory;
 * - Guaranteed: every container limits both cpu and memory, and the summed requests equal the summed
 *   limits for each of them (requests default to limits on pods, so limits alone suffice);
 * - Burstable: anything else.
 * Malformed quantities are ignored here (validation reports them).
 */
import { compareQuantity, parseQuantity, type Quantity } from '../../shared/quantity.js';
import { type JsonObject, arrayAt, isObject, objectAt, objectItems } from './json-values.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const COUNTED = ['cpu', 'memory'] as const;

function add(a: Quantity | undefined, b: Quantity): Quantity {
  if (a === undefined) return b;
  const scale = Math.min(a.scale, b.scale);
  const m = (q: Quantity): bigint => q.mantissa * 10n ** BigInt(q.scale - scale);
  return { mantissa: m(a) + m(b), scale, format: a.format };
}

const ZERO: Quantity = { mantissa: 0n, scale: 0, format: 'DecimalSI' };

/** Adds the positive cpu and memory quantities of `list` into `sums`; returns the names found. */
function accumulate(list: JsonObject | undefined, sums: Map<string, Quantity>): Set<string> {
  const found = new Set<string>();
  if (list === undefined) return found;
  for (const name of COUNTED) {
    const q = parseQuantity(list[name]);
    if (q === undefined || compareQuantity(q, ZERO) <= 0) continue;
    found.add(name);
    sums.set(name, add(sums.get(name), q));
  }
  return found;
}

export function computeQosClass(spec: unknown): QosClass {
  if (!isObject(spec)) return 'BestEffort';
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const list of ['containers', 'initContainers'] as const) {
    for (const [, c] of objectItems(arrayAt(spec, list))) {
      const resources = objectAt(c, 'resources') ?? {};
      accumulate(objectAt(resources, 'requests'), requests);
      const limited = accumulate(objectAt(resources, 'limits'), limits);
      if (!limited.has('cpu') || !limited.has('memory')) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (lim === undefined || compareQuantity(lim, req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
