/**
 * Converting custom resources between the versions of one CustomResourceDefinition, with the checks
 * Kubernetes applies around every strategy (apiextensions-apiserver `conversion/converter.go`, the
 * delegating converter of v1.32):
 *
 * - the target and the input's version must be versions of the definition (`request to convert CR to an
 *   invalid group/version: ...`);
 * - only objects not already in the target version go to the strategy; when none needs it, nothing is
 *   called (an object comes back as is, a list with its apiVersion set);
 * - an object with nothing but apiVersion and kind is converted by `None`, never sent to a webhook;
 * - the strategy must return as many objects as it was given (`returned N objects, expected M`), each in
 *   the target group/version, of the same kind, with the same name, namespace and uid; labels and
 *   annotations may change (validated), the rest of metadata is restored from the original.
 *
 * Every failure is a `ConversionError` whose message starts `conversion for <group>/<version>, Kind=<kind>`
 * of the input; the strategy's own errors are wrapped as `conversion for ... failed: <its message>`.
 * Indexes in messages count from 1, as upstream's do.
 */
import { ConversionError } from './conversion-error.js';
import { gvkString, groupVersionString, objectGroupVersion, type GroupVersion, type JsonObject } from './group-version.js';
import { isObject } from '../../api/json.js';
import { noneConvert } from './none-converter.js';
import { restoreObjectMeta, validateConvertedObject } from './metadata-restore.js';

/** What a strategy receives: the objects to convert and the list they came in (its apiVersion and kind). */
export interface ConversionRequest {
  /** `{apiVersion, kind}` of the list being converted; empty for a single object (as upstream). */
  readonly list: JsonObject;
  readonly objects: readonly JsonObject[];
}

/** A conversion strategy (`None`, a webhook). Throws `ConversionError`; returns JSON objects in order. */
export interface CrConverter {
  convert(request: ConversionRequest, target: GroupVersion, signal?: AbortSignal): Promise<readonly JsonObject[]>;
}

/** A list of custom resources as the storage layer reads them. */
export interface CustomResourceList extends JsonObject {
  items: JsonObject[];
}

export interface ConvertOptions {
  /** The definition's group and version names; when given, versions outside them are refused. */
  readonly group?: string;
  readonly versions?: readonly string[];
  readonly signal?: AbortSignal;
}

function checkVersion(opts: ConvertOptions, gv: GroupVersion): boolean {
  return opts.versions === undefined || (gv.group === opts.group && opts.versions.includes(gv.version));
}

/** The `None` strategy as a `CrConverter`. */
export const noneConverter: CrConverter = {
  convert: async (request, target) => request.objects.map((o) => noneConvert(o, target)),
};

async function convertItems(
  input: JsonObject,
  list: JsonObject,
  items: readonly JsonObject[],
  target: GroupVersion,
  converter: CrConverter,
  opts: ConvertOptions,
): Promise<JsonObject[] | undefined> {
  const desired = groupVersionString(target);
  const inGvk = gvkString(input);
  if (!checkVersion(opts, target)) throw new ConversionError(`request to convert CR to an invalid group/version: ${desired}`);
  const from = objectGroupVersion(input);
  if (!checkVersion(opts, from)) throw new ConversionError(`request to convert CR from an invalid group/version: ${groupVersionString(from)}`);
  items.forEach((item, i) => {
    const gv = objectGroupVersion(item);
    if (!checkVersion(opts, gv)) {
      throw new ConversionError(`request to convert CR list failed, list index ${i} has invalid group/version: ${groupVersionString(gv)}`);
    }
  });

  const toConvert = items.filter((o) => o['apiVersion'] !== desired);
  if (toConvert.length === 0) return undefined;

  let converted: readonly JsonObject[];
  try {
    // Deep copies: a strategy may mutate what it gets, and the originals are needed for the checks.
    converted = await converter.convert({ list, objects: toConvert.map((o) => structuredClone(o)) }, target, opts.signal);
  } catch (e) {
    if (e instanceof ConversionError) throw new ConversionError(`conversion for ${inGvk} failed: ${e.message}`);
    throw e;
  }
  if (converted.length !== toConvert.length) {
    throw new ConversionError(`conversion for ${inGvk} returned ${converted.length} objects, expected ${toConvert.length}`);
  }

  const out: JsonObject[] = [];
  let index = 0;
  for (const original of items) {
    if (original['apiVersion'] === desired) {
      out.push(original);
      continue;
    }
    const candidate = converted[index]!;
    index++;
    const at = `conversion for ${inGvk} returned invalid converted object at index ${index}`;
    if (!isObject(candidate)) throw new ConversionError(`${at}: invalid type`);
    const got = objectGroupVersion(candidate);
    if (got.group !== target.group || got.version !== target.version) {
      throw new ConversionError(`${at}: invalid groupVersion (expected ${desired}, received ${groupVersionString(got)})`);
    }
    const kindOf = (o: JsonObject): string => (typeof o['kind'] === 'string' ? o['kind'] : '');
    if (kindOf(original) !== kindOf(candidate)) {
      throw new ConversionError(`${at}: invalid kind (expected ${kindOf(original)}, received ${kindOf(candidate)})`);
    }
    const problem = validateConvertedObject(original, candidate);
    if (problem !== undefined) throw new ConversionError(`${at}: ${problem}`);
    const restored = restoreObjectMeta(original, candidate);
    if ('error' in restored) {
      throw new ConversionError(`conversion for ${inGvk} returned invalid metadata in object at index ${index}: ${restored.error}`);
    }
    out.push(restored.object);
  }
  return out;
}

/** True for `{apiVersion, kind}` and nothing else (Kubernetes' start-up smoke test object). */
function isEmptyObject(o: JsonObject): boolean {
  const keys = Object.keys(o);
  return keys.length === 2 && keys.includes('apiVersion') && keys.includes('kind');
}

/** One custom resource in `target`. The input is not modified. */
export async function convertObject(obj: JsonObject, target: GroupVersion, converter: CrConverter, opts: ConvertOptions = {}): Promise<JsonObject> {
  const effective = isEmptyObject(obj) ? noneConverter : converter;
  const out = await convertItems(obj, {}, [obj], target, effective, opts);
  return out === undefined ? obj : out[0]!;
}

/**
 * The per-object checks of `convertObject` for each of `objects`: the target and every object's version
 * must be versions of the definition. Throws `ConversionError`.
 */
function checkObjects(objects: readonly JsonObject[], target: GroupVersion, opts: ConvertOptions): void {
  if (!checkVersion(opts, target)) throw new ConversionError(`request to convert CR to an invalid group/version: ${groupVersionString(target)}`);
  for (const o of objects) {
    const from = objectGroupVersion(o);
    if (!checkVersion(opts, from)) throw new ConversionError(`request to convert CR from an invalid group/version: ${groupVersionString(from)}`);
  }
}

/**
 * Several custom resources (each in any version) in `target`, with the checks and messages of
 * `convertObject` for each, as Kubernetes' storage converts what it reads one object at a time; those not
 * in `target` yet go to the strategy in ONE request (one ConversionReview for a page of a list), so the
 * strategy's errors read as for the first of them. Inputs are not modified; objects already in `target` are
 * returned as they are.
 */
export async function convertObjects(objects: readonly JsonObject[], target: GroupVersion, converter: CrConverter, opts: ConvertOptions = {}): Promise<JsonObject[]> {
  checkObjects(objects, target, opts);
  const desired = groupVersionString(target);
  const first = objects.find((o) => o['apiVersion'] !== desired);
  if (first === undefined) return [...objects];
  return (await convertItems(first, {}, objects, target, converter, opts)) ?? [...objects];
}

/**
 * `convertObjects` with the `None` strategy, synchronously (no request is made): only apiVersion changes
 * (the same instances for objects already in `target`).
 */
export function convertObjectsNone(objects: readonly JsonObject[], target: GroupVersion, opts: ConvertOptions = {}): JsonObject[] {
  checkObjects(objects, target, opts);
  return objects.map((o) => noneConvert(o, target));
}

/** A list of custom resources in `target` (the list's apiVersion too). The input is not modified. */
export async function convertList(list: CustomResourceList, target: GroupVersion, converter: CrConverter, opts: ConvertOptions = {}): Promise<CustomResourceList> {
  const { items, ...listMeta } = list;
  const out = await convertItems(list, listMeta, items, target, converter, opts);
  return { ...list, apiVersion: groupVersionString(target), items: out ?? [...items] };
}
