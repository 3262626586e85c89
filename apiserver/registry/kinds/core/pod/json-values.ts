/**
 * Typed reads of decoded JSON. Validation may run on objects whose shapes the schema has not vetted yet,
 * so a value of the wrong type reads as absent (the schema reports the type error; these checks report
 * the rules a schema cannot state).
 */
import { isObject, type JsonObject } from '../../../../api/json.js';

export { isObject, type JsonObject };

/** The object at `key`, or undefined. */
export const objectAt = (o: JsonObject, key: string): JsonObject | undefined => {
  const v = o[key];
  return isObject(v) ? v : undefined;
};

const EMPTY: readonly unknown[] = Object.freeze([]);

/** The array at `key`, or an empty one. */
export const arrayAt = (o: JsonObject, key: string): readonly unknown[] => {
  const v = o[key];
  return Array.isArray(v) ? v : EMPTY;
};

/** The string at `key`, or '' (Go's zero value, which is how Kubernetes sees a missing string). */
export const stringAt = (o: JsonObject, key: string): string => {
  const v = o[key];
  return typeof v === 'string' ? v : '';
};

/** The number at `key`, or undefined. */
export const numberAt = (o: JsonObject, key: string): number | undefined => {
  const v = o[key];
  return typeof v === 'number' ? v : undefined;
};

/** Items of an array that are objects, with their indexes. */
export function* objectItems(list: readonly unknown[]): Generator<[number, JsonObject]> {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (isObject(item)) yield [i, item];
  }
}
