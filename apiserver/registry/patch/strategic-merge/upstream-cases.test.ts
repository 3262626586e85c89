/**
 * Cases from apimachinery's strategicpatch tests, re-expressed: the object before, the patch as kubectl
 * computes it (two-way against the last applied configuration, or three-way against the live object) and
 * the object upstream's merge yields. The schema mirrors upstream's recursive test type `MergeItem`.
 */
import type { Schema } from '../../../schema/schema.js';
import { StatusError } from '../../../errors/status-error.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

type Mutable = { -readonly [K in keyof Schema]: Schema[K] } & { properties: Record<string, Schema> };
const mergeItem: Mutable = { type: 'object', properties: {} };
const str: Schema = { type: 'string' };
const retainKeysItem: Schema = {
  type: 'object',
  properties: {
    name: str,
    value: str,
    other: str,
    simpleMap: { type: 'object', additionalProperties: str },
    mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
    mergingList: { type: 'array', items: mergeItem, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    nonMergingList: { type: 'array', items: mergeItem },
  },
};
Object.assign(mergeItem.properties, {
  name: str,
  value: str,
  other: str,
  mergingList: { type: 'array', items: mergeItem, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
  nonMergingList: { type: 'array', items: mergeItem },
  mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
  nonMergingIntList: { type: 'array', items: { type: 'integer' } },
  mergeItemPtr: { ...mergeItem, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
  simpleMap: { type: 'object', additionalProperties: str },
  replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
  retainKeysMap: { ...retainKeysItem, 'x-kubernetes-patch-strategy': 'retainKeys' },
  retainKeysMergingList: { type: 'array', items: mergeItem, 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
});

const n = (name: number, rest: Record<string, unknown> = {}) => ({ name, ...rest });
const del = (name: number) => ({ name, $patch: 'delete' });
const SEO = '$setElementOrder/mergingList';
const SEO_INT = '$setElementOrder/mergingIntList';
const DEL_INT = '$deleteFromPrimitiveList/mergingIntList';

const cases: readonly (readonly [string, unknown, unknown, unknown])[] = [
  // two-way patches (original + patch = modified)
  ['unique scalars when merging lists', { mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, { mergingIntList: [1, 2, 3] }],
  ['delete map from nested map', { simpleMap: { key1: '1', key2: '1' } }, { simpleMap: { $patch: 'delete' } }, { simpleMap: {} }],
  ['delete all items from merging list', { mergingList: [n(1), n(2)] }, { mergingList: [{ $patch: 'replace' }] }, { mergingList: [] }],
  ['merge empty merging lists', { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
  ['delete all keys from map', { name: '1', value: '1' }, { $patch: 'replace' }, {}],
  ['add key and delete all keys from map', { name: '1', value: '1' }, { other: 'a', $patch: 'replace' }, { other: 'a' }],
  ['delete all duplicate entries in a merging list', { mergingList: [n(1), n(1), n(2, { value: 'a' }), n(3), n(3)] }, { mergingList: [del(1), del(3)] }, { mergingList: [n(2, { value: 'a' })] }],
  ['retainKeys map can add a field when no retainKeys directive present', { retainKeysMap: { name: 'foo' } }, { retainKeysMap: { value: 'bar' } }, { retainKeysMap: { name: 'foo', value: 'bar' } }],
  ['retainKeys map merge an empty map', { retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: {} }, { retainKeysMap: { name: 'foo', value: 'a' } }],
  ['retainKeys list can add a field when no retainKeys directive present', { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] }, { retainKeysMergingList: [{ name: 'foo', value: 'a' }] }, { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] }],
  ['retainKeys list can delete a field when no retainKeys directive present', { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] }, { retainKeysMergingList: [{ name: 'foo', value: null }] }, { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] }],
  ['preserve the order from the patch in a merging list', { mergingList: [n(1), n(2, { value: 'b' }), n(3)] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { other: 'x' })] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { value: 'b', other: 'x' })] }],
  ['preserve the order from the patch in a merging list 2', { mergingList: [n(1), n(2, { value: 'b' }), n(3)] }, { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' })] }, { mergingList: [n(2, { value: 'b' }), n(3, { value: 'c' }), n(1, { value: 'a' })] }],
  ['preserve the order from the patch in a merging int list', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }, { mergingIntList: [3, 1, 2] }],
  ['preserve the order from the patch in a merging int list 2', { mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, { mergingIntList: [2, 3, 1] }],
  ['$setElementOrder contains item that is not present in the list to be merged', { mergingList: [n(1), n(3)] }, { [SEO]: [n(3), n(2), n(1)], mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] }, { mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] }],
  ['$setElementOrder contains item that is not present in the int list to be merged', { mergingIntList: [1, 3] }, { [SEO_INT]: [3, 2, 1] }, { mergingIntList: [3, 1] }],
  ['$deleteFromPrimitiveList of nonexistent item adds nothing', { mergingIntList: [1, 2] }, { [DEL_INT]: [3] }, { mergingIntList: [1, 2] }],
  ['$deleteFromPrimitiveList on an empty (null) primitive list adds nothing', { mergingIntList: null }, { [DEL_INT]: [3] }, { mergingIntList: null }],
  ['$deleteFromPrimitiveList on nonexistent primitive list adds nothing', { foo: ['bar'] }, { [DEL_INT]: [3] }, { foo: ['bar'] }],
  ['$deleteFromPrimitiveList deletes from a list with merge patch strategy', { mergingIntList: [1, 2, 3] }, { [DEL_INT]: [2] }, { mergingIntList: [1, 3] }],
  ['$deleteFromPrimitiveList deletes from a list without merge patch strategy', { nonMergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/nonMergingIntList': [2] }, { nonMergingIntList: [1, 3] }],
  // three-way patches (live object + patch = result)
  ['nil original', { name: '1', other: 'a' }, { value: '1' }, { name: '1', value: '1', other: 'a' }],
  ['add field and delete field from map', { name: '1', other: 'a' }, { name: null, value: '1' }, { value: '1', other: 'a' }],
  ['delete field from nested map', { simpleMap: { key1: '1', key2: '1', other: 'a' } }, { simpleMap: { key2: null } }, { simpleMap: { key1: '1', other: 'a' } }],
  ['replace list of scalars with conflict', { nonMergingIntList: [1, 4] }, { nonMergingIntList: [2, 3] }, { nonMergingIntList: [2, 3] }],
  ['delete all maps from merging list with conflict', { mergingList: [n(1, { other: 'a' }), n(2, { other: 'b' })] }, { mergingList: [del(1), del(2)] }, { mergingList: [] }],
  ['delete all maps from empty merging list', { mergingList: [] }, { mergingList: [del(1), del(2)] }, { mergingList: [] }],
  ['defined null values should propagate overwrite current fields', { name: 'a', other: 'a' }, { name: '1', value: '1', other: null }, { name: '1', value: '1' }],
  ['nested patch merge with empty list', { name: 'hi', mergingList: [{ name: 'hello2' }] }, { [SEO]: [{ name: 'hello' }, { name: 'doesntexist' }], mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] }, { name: 'hi', mergingList: [{ name: 'hello' }, { name: 'hello2' }] }],
  ['delete items in lists of scalars', { mergingIntList: [1, 2, 3, 4] }, { [SEO_INT]: [1, 2], [DEL_INT]: [3] }, { mergingIntList: [1, 2, 4] }],
  ['delete all duplicate items in lists of scalars', { mergingIntList: [1, 2, 3, 3, 4] }, { [SEO_INT]: [1, 2], [DEL_INT]: [3] }, { mergingIntList: [1, 2, 4] }],
  ['add and delete items in lists of scalars', { mergingIntList: [1, 2, 3] }, { [SEO_INT]: [1, 2, 4], [DEL_INT]: [3], mergingIntList: [4] }, { mergingIntList: [1, 2, 4] }],
  ['merge lists of maps', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' })] }, { [SEO]: [n(4), n(1), n(2), n(3)], mergingList: [n(4, { value: '4' }), n(3, { value: '3' })] }, { mergingList: [n(4, { value: '4' }), n(1, { other: 'a' }), n(2, { value: '2', other: 'b' }), n(3, { value: '3' })] }],
  ['add field to map in merging list with conflict', { mergingList: [n(1, { other: 'a' }), n(3, { value: '2', other: 'b' })] }, { [SEO]: [n(1), n(2)], mergingList: [n(1, { value: '1' }), n(2, { value: '2' })] }, { mergingList: [n(1, { value: '1', other: 'a' }), n(2, { value: '2' }), n(3, { value: '2', other: 'b' })] }],
  ['delete map from merging list', { mergingList: [n(1), n(2, { other: 'b' })] }, { [SEO]: [n(2)], mergingList: [del(1)] }, { mergingList: [n(2, { other: 'b' })] }],
  ['delete missing map from merging list with conflict', { mergingList: [n(3, { other: 'a' })] }, { [SEO]: [n(2)], mergingList: [n(2), del(1)] }, { mergingList: [n(2), n(3, { other: 'a' })] }],
  ['add map and delete map from merging list', { mergingList: [n(1), n(2, { other: 'b' }), n(4, { other: 'c' })] }, { [SEO]: [n(2), n(3)], mergingList: [n(3), del(1)] }, { mergingList: [n(2, { other: 'b' }), n(4, { other: 'c' }), n(3)] }],
  ['add map and delete map from merging list with conflict', { mergingList: [n(1, { other: 'a' }), n(4, { other: 'c' })] }, { [SEO]: [n(2), n(3)], mergingList: [n(2), n(3), del(1)] }, { mergingList: [n(4, { other: 'c' }), n(2), n(3)] }],
  ['delete field from map in merging list', { mergingList: [n(1, { value: '1', other: 'a' }), n(2, { value: '2', other: 'b' })] }, { [SEO]: [n(1), n(2)], mergingList: [n(1, { value: null })] }, { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' })] }],
  ['replace non merging list nested in merging list', { mergingList: [n(1, { other: 'a', nonMergingList: [n(1), n(2, { value: '2' })] }), n(2, { other: 'b' })] }, { [SEO]: [n(1), n(2)], mergingList: [n(1, { nonMergingList: [n(1, { value: '1' })] })] }, { mergingList: [n(1, { other: 'a', nonMergingList: [n(1, { value: '1' })] }), n(2, { other: 'b' })] }],
  ['add field to map in merging list nested in merging list', { mergingList: [n(1, { other: 'a', mergingList: [n(1), n(2, { value: '2' })] }), n(2, { other: 'b' })] }, { [SEO]: [n(1), n(2)], mergingList: [{ [SEO]: [n(1), n(2)], name: 1, mergingList: [n(1, { value: '1' })] }] }, { mergingList: [n(1, { other: 'a', mergingList: [n(1, { value: '1' }), n(2, { value: '2' })] }), n(2, { other: 'b' })] }],
  ['nested merging list with deletion conflict, reordered', { mergingList: [n(1, { other: 'a', mergingList: [n(2, { value: '2', other: 'd' })] }), n(2, { other: 'b' })] }, { [SEO]: [n(1), n(2)], mergingList: [{ [SEO]: [n(2), n(1)], name: 1, mergingList: [n(1, { value: '1' })] }] }, { mergingList: [n(1, { other: 'a', mergingList: [n(2, { value: '2', other: 'd' }), n(1, { value: '1' })] }), n(2, { other: 'b' })] }],
  ['merge lists of scalars', { mergingIntList: [1, 2, 4] }, { [SEO_INT]: [1, 2, 3], mergingIntList: [3] }, { mergingIntList: [1, 2, 3, 4] }],
  ['add an item in a list of primitives and preserve order', { mergingIntList: [1, 4, 2] }, { [SEO_INT]: [3, 1, 2], mergingIntList: [3] }, { mergingIntList: [3, 1, 4, 2] }],
  ['delete an item in a list of primitives and preserve order', { mergingIntList: [1, 2, 3] }, { [SEO_INT]: [2, 1], [DEL_INT]: [3] }, { mergingIntList: [2, 1] }],
  ['add an item in a list and preserve order', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' })] }, { [SEO]: [n(3), n(1), n(2)], mergingList: [n(3, { value: '3' })] }, { mergingList: [n(3, { value: '3' }), n(1, { other: 'a' }), n(2, { value: '2', other: 'b' })] }],
  ['add multiple items in a list and preserve order', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' })] }, { [SEO]: [n(1), n(4), n(2), n(3)], mergingList: [n(4, { value: '4' }), n(3, { value: '3' })] }, { mergingList: [n(1, { other: 'a' }), n(4, { value: '4' }), n(2, { value: '2', other: 'b' }), n(3, { value: '3' })] }],
  ['delete an item in a list and preserve order', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' }), n(3, { value: '3' })] }, { [SEO]: [n(2), n(1)], mergingList: [del(3)] }, { mergingList: [n(2, { value: '2', other: 'b' }), n(1, { other: 'a' })] }],
  ['change an item in a list and preserve order', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' }), n(3, { value: '3' })] }, { [SEO]: [n(2), n(3), n(1)], mergingList: [n(3, { value: 'x' })] }, { mergingList: [n(2, { value: '2', other: 'b' }), n(3, { value: 'x' }), n(1, { other: 'a' })] }],
  ['add and delete an item in a list and preserve order', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2', other: 'b' }), n(3, { value: '3' })] }, { [SEO]: [n(4), n(2), n(1)], mergingList: [n(4, { value: '4' }), del(3)] }, { mergingList: [n(4, { value: '4' }), n(2, { value: '2', other: 'b' }), n(1, { other: 'a' })] }],
  ['set elements order in a list with server-only items', { mergingList: [n(1, { other: 'a' }), n(3, { value: '3' }), n(4, { value: '4' }), n(2, { value: '2' }), n(9)] }, { [SEO]: [n(4), n(2), n(3), n(1)] }, { mergingList: [n(4, { value: '4' }), n(2, { value: '2' }), n(3, { value: '3' }), n(1, { other: 'a' }), n(9)] }],
  ['set elements order in a list with server-only items 3', { mergingList: [n(1, { other: 'a' }), n(2, { value: '2' }), n(7), n(9), n(8), n(3, { value: '3' }), n(4, { value: '4' })] }, { [SEO]: [n(2), n(1), n(4), n(3)] }, { mergingList: [n(2, { value: '2' }), n(1, { other: 'a' }), n(7), n(9), n(8), n(4, { value: '4' }), n(3, { value: '3' })] }],
  ['set elements order in a int list with server-only items 2', { mergingIntList: [1, 2, 9, 3, 4] }, { [SEO_INT]: [2, 1, 4, 3] }, { mergingIntList: [2, 1, 9, 4, 3] }],
  ['add and delete an item in a int list and preserve order', { mergingIntList: [1, 2, 3] }, { [SEO_INT]: [4, 2, 1], mergingIntList: [4], [DEL_INT]: [3] }, { mergingIntList: [4, 2, 1] }],
  ['set element order for a merging list with duplicates', { mergingList: [n(1), n(2, { value: 'dup1' }), n(3), n(2, { value: 'dup2' }), n(4)] }, { [SEO]: [n(2), n(1), n(4), n(3), n(2)] }, { mergingList: [n(2, { value: 'dup1' }), n(2, { value: 'dup2' }), n(1), n(4), n(3)] }],
  ['set element order for a merging int list with duplicates', { mergingIntList: [1, 2, 3, 2, 4] }, { [SEO_INT]: [2, 1, 4, 3, 2] }, { mergingIntList: [2, 2, 1, 4, 3] }],
  ['retainKeys map should clear defaulted field', { retainKeysMap: { value: 'foo' } }, { retainKeysMap: { $retainKeys: ['other'], other: 'bar' } }, { retainKeysMap: { other: 'bar' } }],
  ['retainKeys map should clear defaulted field with conflict (discriminated union)', { retainKeysMap: { name: 'type1', value: 'foo' } }, { retainKeysMap: { $retainKeys: ['name', 'other'], name: 'type2', other: 'bar' } }, { retainKeysMap: { name: 'type2', other: 'bar' } }],
  ['retainKeys map deletes a field and clears a field', { retainKeysMap: { name: 'foo', value: 'bar', other: 'a' } }, { retainKeysMap: { $retainKeys: ['name'], value: null } }, { retainKeysMap: { name: 'foo' } }],
  ['retainKeys map clears a field', { retainKeysMap: { name: 'foo', value: 'bar', other: 'a' } }, { retainKeysMap: { $retainKeys: ['name', 'value'] } }, { retainKeysMap: { name: 'foo', value: 'bar' } }],
  ['retainKeys map adds a field in a nested map', { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key3: 'c' } } }, { retainKeysMap: { $retainKeys: ['name', 'simpleMap', 'value'], simpleMap: { key2: 'b' } } }, { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key3: 'c', key2: 'b' } } }],
];

test.each(cases)('%s', (_name, original, patch, expected) => {
  expect(applyStrategicMergePatch(structuredClone(original), structuredClone(patch), mergeItem)).toEqual(expected);
});

test.each([
  ['should check if order in $setElementOrder and patch list match', { mergingList: [n(1), n(3), n(2)] }, { [SEO]: [n(1), n(2), n(3)], mergingList: [n(3, { value: '3' }), n(1, { value: '1' })] }, "doesn't match"],
  ['int list order mismatch', { mergingIntList: [1, 3, 2] }, { [SEO_INT]: [1, 2, 3], mergingIntList: [3, 1] }, "doesn't match"],
  ['missing merge key should error out', { mergingList: [n(1, { value: 'a' })] }, { mergingList: [{ value: 'b' }] }, 'does not contain declared merge key'],
])('error: %s', (_name, original, patch, message) => {
  let error: unknown;
  try {
    applyStrategicMergePatch(structuredClone(original), structuredClone(patch), mergeItem);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(StatusError);
  expect((error as StatusError).message).toContain(message);
});
