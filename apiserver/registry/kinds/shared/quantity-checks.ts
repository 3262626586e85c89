/**
 * The checks Kubernetes applies to resource quantities of node capacity and allocatable
 * (`ValidateResourceQuantityValue`): well-formed, not negative, and whole for integer resources.
 */
import { invalidValue, type FieldError } from '../../../validation/field-error.js';
import { QUANTITY_FORMAT_ERROR, isNegative, isWhole, parseQuantity } from './quantity.js';

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

/** Errors of a resource list (`status.capacity`), each at `<path>.<resource>` as Kubernetes reports them. */
export function validateResourceList(list: unknown, path: string, errs: FieldError[]): void {
  if (list === null || typeof list !== 'object' || Array.isArray(list)) return;
  for (const [name, q] of Object.entries(list as Record<string, unknown>)) {
    const at = `${path}.${name}`;
    const quantity = parseQuantity(q);
    if (quantity === undefined) {
      errs.push(invalidValue(at, q, QUANTITY_FORMAT_ERROR));
      continue;
    }
    if (isNegative(quantity)) errs.push(invalidValue(at, String(q), 'must be greater than or equal to 0'));
    if (isIntegerResource(name) && !isWhole(quantity)) errs.push(invalidValue(at, String(q), 'must be an integer'));
  }
}
