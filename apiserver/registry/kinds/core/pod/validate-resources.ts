/**
 * Validation of a container's `resources` as Kubernetes does it: resource names (standard container
 * resources, hugepages-*, or extended `domain/name`), quantities that parse and are not negative, integer
 * extended resources, and requests <= limits (== for resources that cannot be overcommitted).
 */
import { type FieldError, type FieldPath, forbidden, invalidValue, required } from '../../../../validation/field-error.js';
import { isQualifiedName } from '../../../../validation/names.js';
import { type JsonObject, objectAt } from './json-values.js';
import { QUANTITY_FORMAT_ERROR, type Quantity, compareQuantity, formatQuantity, isNegative, isWhole, parseQuantity } from '../../shared/quantity.js';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const HUGEPAGES_PREFIX = 'hugepages-';
/** Kubernetes' own resource domain: names under it are native, not extended. */
const NATIVE_DOMAIN = 'kubernetes.io/';

const isHugePages = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX);
const isNative = (name: string): boolean => !name.includes('/') || name.includes(NATIVE_DOMAIN);
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalidValue(path, name, msg));
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) errs.push(invalidValue(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(invalidValue(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** Parses one entry; pushes errors and returns undefined when it is unusable. */
function checkQuantity(name: string, raw: unknown, path: FieldPath, errs: FieldError[]): Quantity | undefined {
  const q = parseQuantity(raw);
  if (q === undefined) {
    errs.push(invalidValue(path, raw, QUANTITY_FORMAT_ERROR));
    return undefined;
  }
  if (isNegative(q)) errs.push(invalidValue(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isExtended(name) && !isWhole(q)) errs.push(invalidValue(path, formatQuantity(q), 'must be an integer'));
  return q;
}

export function validateResourceRequirements(container: JsonObject, path: FieldPath): FieldError[] {
  const resources = objectAt(container, 'resources');
  if (resources === undefined) return [];
  const errs: FieldError[] = [];
  const limPath = path.child('limits');
  const reqPath = path.child('requests');
  const limitsRaw = objectAt(resources, 'limits') ?? {};
  const requestsRaw = objectAt(resources, 'requests') ?? {};
  const limits = new Map<string, Quantity>();
  let limitsCpuOrMemory = false;
  let limitsHugePages = false;
  for (const [name, raw] of Object.entries(limitsRaw)) {
    const at = limPath.key(name);
    errs.push(...validateResourceName(name, at));
    const q = checkQuantity(name, raw, at, errs);
    if (q !== undefined) limits.set(name, q);
    if (isHugePages(name)) limitsHugePages = true;
    if (name === 'cpu' || name === 'memory') limitsCpuOrMemory = true;
  }
  let requestsCpuOrMemory = false;
  let requestsHugePages = false;
  for (const [name, raw] of Object.entries(requestsRaw)) {
    const at = reqPath.key(name);
    errs.push(...validateResourceName(name, at));
    const q = checkQuantity(name, raw, at, errs);
    if (isHugePages(name)) requestsHugePages = true;
    if (name === 'cpu' || name === 'memory') requestsCpuOrMemory = true;
    if (q === undefined) continue;
    const limit = limits.get(name);
    if (limit !== undefined) {
      const cmp = compareQuantity(q, limit);
      // Kubernetes reports these at `requests`, printing the request's canonical value.
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(invalidValue(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (cmp > 0) {
        errs.push(invalidValue(reqPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (!overcommitAllowed(name) && !(name in limitsRaw)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
  }
  if (!limitsCpuOrMemory && limitsHugePages) errs.push(forbidden(limPath, 'HugePages require cpu or memory'));
  if (!requestsCpuOrMemory && requestsHugePages) errs.push(forbidden(reqPath, 'HugePages require cpu or memory'));
  return errs;
}

