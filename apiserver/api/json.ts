/**
 * JSON values as `JSON.parse` makes them. `isObject` is THE predicate for "a JSON object" (not null, not
 * an array) used by every reader of decoded JSON; CEL's object values are another notion with their own
 * predicate (`cel/library/support.ts`).
 */

/** A JSON object: its members by name. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object: an object that is neither null nor an array. */
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
