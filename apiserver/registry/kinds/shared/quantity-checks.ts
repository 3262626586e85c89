/**
 * The checks Kubernetes applies to resource quantities of node capacity and allocatable
 * (`ValidateResourceQuantityValue`): well-formed, not negative, and whole for integer resources.
 */
import { invalidValue, type FieldError } from '../../../validation/field-error.js';

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const quantityRe = /^([+-]?)(\d+\.?\d*|\.\d+)(?:([KMGTPE]i)|([numkMGTPE])|[eE]([+-]?\d+))?$/;
const BINARY_POWERS = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const decimalExp: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Resources counted in whole units (besides extended resources, see `isIntegerResource`). */
const INTEGER_RESOURCES = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/**
 * Integer resources: the standard object counts, and extended resources (`example.com/gpu`: a domain
 * prefix other than the native `kubernetes.io` ones, not `requests.`-prefixed).
 */
function isIntegerResource(name: string): boolean {
  if (INTEGER_RESOURCES.has(name)) return true;
  const slash = name.indexOf('/');
  if (slash < 0 || name.startsWith('requests.')) return false;
  const prefix = name.slice(0, slash);
  return prefix !== 'kubernetes.io' && !prefix.endsWith('.kubernetes.io');
}

/**
 * Sign and whole-ness of a quantity (string or JSON number), or undefined when malformed. Whole-ness
 * is decided on the milli-value, as Kubernetes does (`1500m` is not whole, `2k` is).
 */
function inspect(q: unknown): { negative: boolean; whole: boolean } | undefined {
  const text = typeof q === 'number' && Number.isFinite(q) ? String(q) : q;
  if (typeof text !== 'string') return undefined;
  const m = quantityRe.exec(text);
  if (m === null) return undefined;
  const [, sign, digits, binary, decimal, exponent] = m;
  const value = Number(digits);
  const negative = sign === '-' && value !== 0;
  if (binary !== undefined) return { negative, whole: Number.isInteger(value * 1024 ** (BINARY_POWERS.indexOf(binary) + 1)) };
  const exp = decimal !== undefined ? decimalExp[decimal]! : exponent !== undefined ? Number(exponent) : 0;
  const [, frac = ''] = digits!.split('.');
  // Whole when no fractional digit survives the decimal exponent.
  const significantFrac = frac.replace(/0+$/, '').length;
  return { negative, whole: significantFrac <= exp };
}

/** Errors of a resource list (`status.capacity`), each at `<path>.<resource>` as Kubernetes reports them. */
export function validateResourceList(list: unknown, path: string, errs: FieldError[]): void {
  if (list === null || typeof list !== 'object' || Array.isArray(list)) return;
  for (const [name, q] of Object.entries(list as Record<string, unknown>)) {
    const at = `${path}.${name}`;
    const info = inspect(q);
    if (info === undefined) {
      errs.push(invalidValue(at, q, QUANTITY_FORMAT_ERROR));
      continue;
    }
    if (info.negative) errs.push(invalidValue(at, String(q), 'must be greater than or equal to 0'));
    if (isIntegerResource(name) && !info.whole) errs.push(invalidValue(at, String(q), 'must be an integer'));
  }
}
