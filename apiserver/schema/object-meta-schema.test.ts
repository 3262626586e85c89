import { kindSchema, listMetaSchema, objectMetaSchema } from './object-meta-schema.js';

describe('objectMetaSchema', () => {
  const props = objectMetaSchema.properties!;

  it('declares every ObjectMeta field of v1.32', () => {
    expect(Object.keys(props).sort()).toEqual(
      [
        'annotations', 'creationTimestamp', 'deletionGracePeriodSeconds', 'deletionTimestamp', 'finalizers', 'generateName',
        'generation', 'labels', 'managedFields', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'selfLink', 'uid',
      ].sort(),
    );
  });

  it('types timestamps and counters', () => {
    expect(props.creationTimestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(props.deletionTimestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(props.generation).toMatchObject({ type: 'integer', format: 'int64' });
    expect(props.deletionGracePeriodSeconds).toMatchObject({ type: 'integer', format: 'int64' });
  });

  it('has list semantics for owner references and finalizers', () => {
    expect(props.ownerReferences).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-patch-merge-key': 'uid' });
    expect(props.ownerReferences!.items!.required).toEqual(['apiVersion', 'kind', 'name', 'uid']);
    expect(props.finalizers).toMatchObject({ 'x-kubernetes-list-type': 'set', items: { type: 'string' } });
    expect(props.managedFields!.items!.properties!.time).toMatchObject({ format: 'date-time' });
  });

  it('keeps labels and annotations as maps of strings', () => {
    expect(props.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(props.annotations).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
  });

  it('is frozen', () => {
    expect(Object.isFrozen(objectMetaSchema)).toBe(true);
    expect(Object.isFrozen(props.labels)).toBe(true);
    expect(Object.isFrozen(listMetaSchema)).toBe(true);
  });
});

describe('kindSchema', () => {
  it('wraps the kind with apiVersion, kind and metadata first', () => {
    const s = kindSchema('A thing.', { spec: { type: 'object', properties: { x: { type: 'string' } } } }, ['spec']);
    expect(Object.keys(s.properties!)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(s.properties!.metadata).toBe(objectMetaSchema);
    expect(s).toMatchObject({ type: 'object', description: 'A thing.', required: ['spec'] });
  });

  it('ignores a redefinition of the common fields and omits an empty required list', () => {
    const s = kindSchema('x', { kind: { type: 'integer' } });
    expect(s.properties!.kind).toMatchObject({ type: 'string' });
    expect(s.required).toBeUndefined();
  });
});
