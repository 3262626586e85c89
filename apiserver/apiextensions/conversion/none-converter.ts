/**
 * The `None` conversion strategy (Kubernetes' nop converter): only `apiVersion` changes, every other field
 * is kept as it is. Pure: the inputs are not modified; objects already in the target version are returned
 * as they are (the same instances), others are shallow copies with the new apiVersion.
 */
import { groupVersionString, type GroupVersion, type JsonObject } from './group-version.js';

/** One object in `target` (`group/version`). */
export function noneConvert<T extends JsonObject>(obj: T, target: GroupVersion): T {
  const apiVersion = groupVersionString(target);
  return obj['apiVersion'] === apiVersion ? obj : { ...obj, apiVersion };
}

/** Every object in `target`, in order. */
export function noneConvertAll<T extends JsonObject>(objects: readonly T[], target: GroupVersion): T[] {
  return objects.map((o) => noneConvert(o, target));
}

/**
 * A list (`{apiVersion, kind, items}`) in `target`: the list's own apiVersion and each item's, as the
 * converter does for the lists the storage layer reads.
 */
export function noneConvertList<L extends JsonObject & { items: readonly JsonObject[] }>(list: L, target: GroupVersion): L {
  return { ...list, apiVersion: groupVersionString(target), items: noneConvertAll(list.items, target) };
}
