import { podTemplates } from '../../kinds/core/podtemplate.js';
import type { Schema } from '../../../schema/schema.js';
import { StatusError } from '../../../errors/status-error.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

// A schema like upstream's test type `mergeItem`: every strategy the merge reads.
const item: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    value: { type: 'string' },
    other: { type: 'string' },
    mergingList: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' }, other: { type: 'string' } } }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
    nonMergingList: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } } },
    nonMergingIntList: { type: 'array', items: { type: 'integer' } },
    replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
    simpleMap: { type: 'object', additionalProperties: { type: 'string' } },
    retainKeysMap: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' }, other: { type: 'string' } }, 'x-kubernetes-patch-strategy': 'retainKeys' },
    retainKeysMergingList: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' }, other: { type: 'string' } } }, 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' },
    noKeyList: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } }, 'x-kubernetes-patch-strategy': 'merge' },
    listOfLists: { type: 'array', items: { type: 'array', items: { type: 'string' } }, 'x-kubernetes-patch-strategy': 'merge' },
  },
};

const schema: Schema = { ...item, properties: { ...item.properties, nested: item } };

const smp = (original: unknown, patch: unknown, s: Schema = schema): unknown =>
  applyStrategicMergePatch(structuredClone(original), structuredClone(patch), s);

function failure(original: unknown, patch: unknown, s: Schema = schema): StatusError {
  try {
    smp(original, patch, s);
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('the patch applied');
}

const names = (list: unknown): unknown[] => (list as { name: string }[]).map((e) => e.name);

describe('maps', () => {
  test('merge recursively; null deletes; unmatched nulls are ignored; scalars and new members are taken', () => {
    expect(smp({ name: 'a', simpleMap: { x: '1', y: '2' }, nested: { value: 'v', other: 'o' } }, { value: 'new', simpleMap: { x: null, z: '3' }, nested: { other: null }, missing: null })).toEqual({
      name: 'a',
      simpleMap: { y: '2', z: '3' },
      nested: { value: 'v' },
      value: 'new',
    });
  });

  test('a member whose type differs is replaced; new values lose nulls and $patch maps', () => {
    expect(smp({ simpleMap: 'x', nested: { name: 'n' } }, { simpleMap: { a: '1' }, nested: 'flat', fresh: { a: null, b: { $patch: 'delete' }, c: [{ $patch: 'delete', name: 'x' }, { name: 'y' }] } })).toEqual({
      simpleMap: { a: '1' },
      nested: 'flat',
      fresh: { c: [{ name: 'y' }] },
    });
  });

  test('$patch: replace on a map replaces it; $patch: delete empties it', () => {
    expect(smp({ nested: { name: 'n', value: 'v' }, simpleMap: { a: '1' } }, { nested: { $patch: 'replace', other: 'o' }, simpleMap: { $patch: 'delete' } })).toEqual({
      nested: { other: 'o' },
      simpleMap: {},
    });
  });

  test('patch strategy replace on a map field takes the patch whole', () => {
    expect(smp({ replacingItem: { a: 1, b: 2 } }, { replacingItem: { c: 3 } })).toEqual({ replacingItem: { c: 3 } });
  });

  test('an unknown $patch value on a map is 400 with upstream message (kube: 500)', () => {
    const err = failure({ nested: { name: 'n' } }, { nested: { $patch: 'merge', name: 'x' } });
    expect(err.code).toBe(400);
    expect(err.message).toBe('unknown patch type: merge in map: map[$patch:merge name:x]');
  });

  test('a patch that is not an object is 400; null changes nothing', () => {
    expect(failure({}, [1]).message).toBe('json: cannot unmarshal array into Go value of type map[string]interface {}');
    expect(failure({}, 'x').code).toBe(400);
    expect(smp({ a: 1 }, null)).toEqual({ a: 1 });
  });

  test('the inputs given are the ones changed (callers pass copies); the result is a fresh merge', () => {
    const original = { simpleMap: { a: '1' } };
    const out = applyStrategicMergePatch(original, { simpleMap: { b: '2' } }, schema);
    expect(out).toEqual({ simpleMap: { a: '1', b: '2' } });
  });
});

describe('lists merged by key', () => {
  const original = { mergingList: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }, { name: 'c', value: '3' }] };

  test('elements with a known key merge; new ones are added; patch order first, then interleaved by the live order', () => {
    const out = smp(original, { mergingList: [{ name: 'd', value: '4' }, { name: 'b', other: 'x' }] }) as { mergingList: unknown[] };
    expect(out.mergingList).toEqual([{ name: 'd', value: '4' }, { name: 'a', value: '1' }, { name: 'b', value: '2', other: 'x' }, { name: 'c', value: '3' }]);
  });

  test('$patch: delete removes every element with that key; an unmatched delete changes nothing', () => {
    const dup = { mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'a', value: 'again' }] };
    expect(names((smp(dup, { mergingList: [{ name: 'a', $patch: 'delete' }, { name: 'zz', $patch: 'delete' }] }) as { mergingList: unknown }).mergingList)).toEqual(['b']);
  });

  test('$patch: replace makes the other patch elements the whole list', () => {
    expect(smp(original, { mergingList: [{ name: 'z' }, { $patch: 'replace' }, { name: 'y' }] })).toEqual({ mergingList: [{ name: 'z' }, { name: 'y' }] });
  });

  test('$patch: merge in a list and unknown values are errors', () => {
    expect(failure(original, { mergingList: [{ $patch: 'merge' }] }).message).toBe('merging lists cannot yet be specified in the patch');
    expect(failure(original, { mergingList: [{ name: 'a', $patch: 'nope' }] }).message).toBe('unknown patch type: nope in map: map[$patch:nope name:a]');
  });

  test('an element without the merge key is 400 `does not contain declared merge key` (kube: 500)', () => {
    const err = failure(original, { mergingList: [{ value: 'b' }] });
    expect(err.code).toBe(400);
    expect(err.message).toBe('map: map[value:b] does not contain declared merge key: name');
    expect(failure(original, { mergingList: [{ $patch: 'delete', value: 'x' }] }).message).toBe('map: map[$patch:delete value:x] does not contain declared merge key: name');
  });

  test('a merge list of objects without a merge key cannot merge', () => {
    expect(failure({ noKeyList: [{ a: '1' }] }, { noKeyList: [{ a: '2' }] }).message).toBe('cannot merge lists without merge key for struct');
  });

  test('element types that differ, and lists of lists, are errors (lists of lists: 422)', () => {
    expect(failure(original, { mergingList: ['x'] }).message).toMatch(/^list element types are not identical: /);
    const lol = failure({ listOfLists: [['a']] }, { listOfLists: [['b']] });
    expect(lol.code).toBe(422);
    expect(lol.reason).toBe('Invalid');
    expect(lol.details?.causes).toEqual([{ reason: 'UnexpectedServerResponse', message: 'lists of lists are not supported' }]);
  });

  test('nested: a merged element merges its own lists by their keys', () => {
    const o = { nested: { mergingList: [{ name: 'a', value: '1' }] }, mergingList: [{ name: 'x' }] };
    expect(smp(o, { nested: { mergingList: [{ name: 'a', other: 'o' }, { name: 'b' }] } })).toEqual({
      nested: { mergingList: [{ name: 'a', value: '1', other: 'o' }, { name: 'b' }] },
      mergingList: [{ name: 'x' }],
    });
  });

  test('a null list deletes it; an empty patch list changes nothing', () => {
    expect(smp(original, { mergingList: null })).toEqual({});
    expect(smp(original, { mergingList: [] })).toEqual(original);
  });
});

describe('primitive lists', () => {
  test('merged as sets: duplicates collapse, patch values first then live order', () => {
    expect(smp({ mergingIntList: [1, 2, 3] }, { mergingIntList: [4, 2] })).toEqual({ mergingIntList: [4, 1, 2, 3] });
  });

  test('$deleteFromPrimitiveList removes values; absent values and absent lists add nothing', () => {
    expect(smp({ mergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [2, 9] })).toEqual({ mergingIntList: [1, 3] });
    expect(smp({ other: 'x' }, { '$deleteFromPrimitiveList/mergingIntList': [1] })).toEqual({ other: 'x' });
    expect(smp({ mergingIntList: [1, 2] }, { mergingIntList: [5], '$deleteFromPrimitiveList/mergingIntList': [1] })).toEqual({ mergingIntList: [5, 2] });
  });

  test('a malformed deletion key is 400', () => {
    const err = failure({ mergingIntList: [1] }, { $deleteFromPrimitiveList: [1] });
    expect(err.code).toBe(400);
    expect(err.message).toBe('invalid patch format of primitive list');
  });
});

describe('atomic lists', () => {
  test('are replaced whole, objects and primitives', () => {
    expect(smp({ nonMergingList: [{ name: 'a', value: '1' }], nonMergingIntList: [1, 2] }, { nonMergingList: [{ name: 'a' }], nonMergingIntList: [3] })).toEqual({
      nonMergingList: [{ name: 'a' }],
      nonMergingIntList: [3],
    });
  });
});

describe('$retainKeys', () => {
  test('clears keys not listed, then merges', () => {
    expect(smp({ retainKeysMap: { name: 'n', value: 'v', other: 'o' } }, { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'w' } })).toEqual({ retainKeysMap: { name: 'n', value: 'w' } });
  });

  test('in merged list elements (volumes switching source)', () => {
    const out = smp({ retainKeysMergingList: [{ name: 'a', value: 'v' }, { name: 'b', value: 'x' }] }, { retainKeysMergingList: [{ name: 'a', $retainKeys: ['name', 'other'], other: 'o' }] });
    expect(out).toEqual({ retainKeysMergingList: [{ name: 'a', other: 'o' }, { name: 'b', value: 'x' }] });
  });

  test('a patch key outside the list, or a directive that is not a list, is 400', () => {
    expect(failure({ retainKeysMap: {} }, { retainKeysMap: { $retainKeys: ['name'], value: 'v' } }).message).toBe('invalid patch format of retainKeys');
    expect(failure({ retainKeysMap: {} }, { retainKeysMap: { $retainKeys: 'name' } }).code).toBe(400);
    // nulls and other directives are exempt
    expect(smp({ retainKeysMap: { name: 'n', value: 'v' } }, { retainKeysMap: { $retainKeys: ['name'], value: null } })).toEqual({ retainKeysMap: { name: 'n' } });
  });
});

describe('$setElementOrder', () => {
  const original = { mergingList: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }, { name: 'c', value: '3' }] };

  test('orders the live list without changing its contents', () => {
    expect(names((smp(original, { '$setElementOrder/mergingList': [{ name: 'c' }, { name: 'a' }, { name: 'b' }] }) as { mergingList: unknown }).mergingList)).toEqual(['c', 'a', 'b']);
  });

  test('orders the merge of the patch list; a server-only element goes before the first patch element the live list has after it', () => {
    const out = smp(original, {
      '$setElementOrder/mergingList': [{ name: 'd' }, { name: 'c' }, { name: 'a' }],
      mergingList: [{ name: 'd', value: '4' }, { name: 'c', value: 'C' }],
    }) as { mergingList: { name: string; value: string }[] };
    // b (live index 1) comes before c (live index 2); d is not live, so it stays first (upstream gives d b c a).
    expect(out.mergingList).toEqual([{ name: 'd', value: '4' }, { name: 'b', value: '2' }, { name: 'c', value: 'C' }, { name: 'a', value: '1' }]);
  });

  test('with deletions (client-side apply dropping an element)', () => {
    const out = smp(original, { '$setElementOrder/mergingList': [{ name: 'c' }, { name: 'a' }], mergingList: [{ name: 'b', $patch: 'delete' }] });
    expect(names((out as { mergingList: unknown }).mergingList)).toEqual(['c', 'a']);
  });

  test('primitive lists', () => {
    expect(smp({ mergingIntList: [1, 2, 3] }, { '$setElementOrder/mergingIntList': [3, 4, 1, 2], mergingIntList: [4] })).toEqual({ mergingIntList: [3, 4, 1, 2] });
  });

  test('on a list the original lacks, the patch list is taken in that order', () => {
    expect(smp({}, { '$setElementOrder/mergingList': [{ name: 'y' }, { name: 'x' }], mergingList: [{ name: 'y' }, { name: 'x' }] })).toEqual({ mergingList: [{ name: 'y' }, { name: 'x' }] });
  });

  test('a patch list in another order, or naming elements the directive lacks, does not match (400; kube: 500)', () => {
    const err = failure(original, { '$setElementOrder/mergingList': [{ name: 'a' }, { name: 'b' }, { name: 'c' }], mergingList: [{ name: 'c', value: '3' }, { name: 'a', value: '1' }] });
    expect(err.code).toBe(400);
    expect(err.message).toBe("the order in patch list:\n[map[name:c value:3] map[name:a value:1]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b] map[name:c]]");
    expect(failure({ mergingIntList: [1, 3, 2] }, { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] }).message).toMatch(/doesn't match/);
  });

  test('malformed: not a list is 400 (bad argument type; kube: 500); a key without a field is 400', () => {
    expect(failure(original, { '$setElementOrder/mergingList': 'x' }).message).toBe('expected a []interface {}, but received a string');
    const err = failure(original, { $setElementOrder: [{ name: 'a' }] });
    expect(err.code).toBe(400);
    expect(err.message).toBe('invalid patch format of setElementOrder list');
    expect(failure(original, { '$setElementOrder/mergingList': [{ value: 'x' }] }).message).toBe('map: map[value:x] does not contain declared merge key: name');
  });
});

describe('with the PodTemplate schema (Kubernetes merge keys)', () => {
  const template = {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 't', finalizers: ['a/x'], ownerReferences: [{ uid: 'u1', name: 'o1', kind: 'K', apiVersion: 'v1' }] },
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['x', 'y'] },
          { name: 'side', image: 'side:1', volumeMounts: [{ name: 'v', mountPath: '/v' }] },
        ],
        volumes: [{ name: 'v', emptyDir: {} }],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    },
  };
  const s = podTemplates.schema;
  type Spec = { containers: Record<string, unknown>[]; volumes: Record<string, unknown>[]; tolerations: unknown[] };
  const specOf = (o: unknown): Spec => (o as { template: { spec: Spec } }).template.spec;

  test('client-side apply: one container dropped, an env value changed (the patch kubectl sends)', () => {
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'app' }],
          containers: [{ '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }], env: [{ name: 'B', value: '3' }], name: 'app' }, { $patch: 'delete', name: 'side' }],
        },
      },
    };
    const out = smp(template, patch, s);
    const spec = specOf(out);
    expect(spec.containers.map((c) => c.name)).toEqual(['app']);
    expect(spec.containers[0]!.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '3' }]);
    expect(spec.containers[0]!.image).toBe('app:1');
    expect((out as { metadata: { annotations: unknown } }).metadata.annotations).toEqual({ 'kubectl.kubernetes.io/last-applied-configuration': '{}' });
  });

  test('ports merge by containerPort, args are atomic, tolerations atomic, volumes merge by name with retainKeys', () => {
    const out = smp(
      template,
      {
        template: {
          spec: {
            containers: [{ name: 'app', ports: [{ containerPort: 81 }], args: ['z'] }],
            volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }],
            tolerations: [{ key: 'other', operator: 'Exists' }],
          },
        },
      },
      s,
    );
    const spec = specOf(out);
    expect(spec.containers[0]!.ports).toEqual([{ containerPort: 81 }, { containerPort: 80, protocol: 'TCP' }]);
    expect(spec.containers[0]!.args).toEqual(['z']);
    expect(spec.volumes).toEqual([{ name: 'v', configMap: { name: 'cm' } }]);
    expect(spec.tolerations).toEqual([{ key: 'other', operator: 'Exists' }]);
  });

  test('metadata: finalizers merge as a set, ownerReferences by uid, labels granular', () => {
    const out = smp(template, { metadata: { finalizers: ['b/y'], ownerReferences: [{ uid: 'u2', name: 'o2', kind: 'K', apiVersion: 'v1' }], labels: { l: '1' } } }, s) as { metadata: Record<string, unknown> };
    expect(out.metadata.finalizers).toEqual(['b/y', 'a/x']);
    expect((out.metadata.ownerReferences as { uid: string }[]).map((r) => r.uid)).toEqual(['u2', 'u1']);
    expect(out.metadata.labels).toEqual({ l: '1' });
  });

  test('an initContainer without a name: the message kubectl users know', () => {
    const err = failure(template, { template: { spec: { containers: [{ image: 'httpd' }] } } }, s);
    expect(err.message).toBe('map: map[image:httpd] does not contain declared merge key: name');
  });
});
