import type { ObjectMeta } from '../api/object.js';
import { errorString } from './field-error.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from './object-meta.js';

const ns: ObjectMetaOptions = { namespaced: true, nameRule: 'dns-subdomain' };
const cluster: ObjectMetaOptions = { namespaced: false, nameRule: 'dns-label' };
const check = (meta: ObjectMeta, opts: ObjectMetaOptions = ns): string[] => validateObjectMeta(meta, opts).map(errorString);
const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' };

describe('validateObjectMeta', () => {
  it('accepts a valid object', () => {
    expect(check({ name: 'a.b-c', namespace: 'default', labels: { 'app.kubernetes.io/name': 'x', e: '' }, annotations: { 'A/b': 'c' }, finalizers: ['example.com/f'], ownerReferences: [ref] })).toEqual([]);
  });

  it('requires name or generateName', () => {
    expect(check({ namespace: 'default' })).toEqual(['metadata.name: Required value: name or generateName is required']);
    expect(check({ namespace: 'default', generateName: 'web-' })).toEqual([]);
  });

  it('checks name and generateName syntax per rule', () => {
    expect(check({ name: 'A', namespace: 'd' })[0]).toMatch(/^metadata\.name: Invalid value: "A": a lowercase RFC 1123 subdomain/);
    expect(check({ name: 'a.b' }, cluster)[0]).toMatch(/^metadata\.name: Invalid value: "a.b": a lowercase RFC 1123 label/);
    expect(check({ generateName: 'Bad_' , namespace: 'd'})[0]).toMatch(/^metadata\.generateName: Invalid value: "Bad_"/);
    expect(check({ name: 'a/b', namespace: 'd' }, { namespaced: true, nameRule: 'path-segment' })).toEqual(["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
    expect(check({ name: '..', namespace: 'd' }, { namespaced: true, nameRule: 'path-segment' })).toEqual(["metadata.name: Invalid value: \"..\": may not be '..'"]);
    expect(check({ generateName: '..', namespace: 'd' }, { namespaced: true, nameRule: 'path-segment' })).toEqual([]);
  });

  it('applies namespace scope', () => {
    expect(check({ name: 'a' })).toEqual(['metadata.namespace: Required value']);
    expect(check({ name: 'a', namespace: 'Bad' })[0]).toMatch(/^metadata\.namespace: Invalid value: "Bad": a lowercase RFC 1123 label/);
    expect(check({ name: 'a', namespace: 'x' }, cluster)).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
  });

  it('rejects a negative generation', () => {
    expect(check({ name: 'a', namespace: 'd', generation: -1 })).toEqual(['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('checks label keys and values', () => {
    const errs = check({ name: 'a', namespace: 'd', labels: { 'bad key': 'v', ok: 'bad value' } });
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^metadata\.labels: Invalid value: "bad key": name part must consist of/);
    expect(errs[1]).toMatch(/^metadata\.labels: Invalid value: "bad value": a valid label must be/);
    expect(check({ name: 'a', namespace: 'd', labels: { k: 'x'.repeat(64) } })[0]).toMatch(/must be no more than 63 characters/);
  });

  it('checks annotation keys and total size', () => {
    expect(check({ name: 'a', namespace: 'd', annotations: { 'a b': 'x' } })[0]).toMatch(/^metadata\.annotations: Invalid value: "a b"/);
    expect(check({ name: 'a', namespace: 'd', annotations: { k: 'x'.repeat(262143) } })).toEqual([]);
    expect(check({ name: 'a', namespace: 'd', annotations: { k: 'x'.repeat(262144) } })).toEqual(['metadata.annotations: Too long: must have at most 262144 bytes']);
    expect(check({ name: 'a', namespace: 'd', annotations: { k: 'é'.repeat(131072) } })).toEqual(['metadata.annotations: Too long: must have at most 262144 bytes']);
  });

  it('checks owner references', () => {
    expect(check({ name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] })).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    expect(check({ name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] })[0]).toMatch(/\/v1, Kind=Event is disallowed from being an owner$/);
    const two = check({ name: 'a', namespace: 'd', ownerReferences: [{ ...ref, controller: true }, { ...ref, uid: 'u2', name: 'rs2', controller: true }] });
    expect(two).toHaveLength(1);
    expect(two[0]).toMatch(/^metadata\.ownerReferences: Invalid value: .*: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/rs and ReplicaSet\/rs2$/);
    expect(check({ name: 'a', namespace: 'd', ownerReferences: [{ ...ref, controller: true }, { ...ref, uid: 'u2', controller: false }] })).toEqual([]);
  });

  it('checks finalizer names', () => {
    expect(check({ name: 'a', namespace: 'd', finalizers: ['kubernetes', 'a/b/c'] })).toHaveLength(1);
    expect(check({ name: 'a', namespace: 'd', finalizers: ['a/b/c'] })[0]).toMatch(/^metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name/);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = { name: 'a', namespace: 'd', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2, finalizers: ['x/y'] };
  const upd = (m: Partial<ObjectMeta>, o: ObjectMeta = old): string[] => validateObjectMetaUpdate({ ...old, ...m }, o).map(errorString);

  it('accepts an unchanged identity', () => {
    expect(upd({ labels: { a: 'b' }, generation: 3 })).toEqual([]);
  });

  it.each<[string, Partial<ObjectMeta>, string]>([
    ['name', { name: 'b' }, 'metadata.name: Invalid value: "b": field is immutable'],
    ['namespace', { namespace: 'e' }, 'metadata.namespace: Invalid value: "e": field is immutable'],
    ['uid', { uid: 'v' }, 'metadata.uid: Invalid value: "v": field is immutable'],
    ['creationTimestamp', { creationTimestamp: '2025-01-01T00:00:00Z' }, 'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable'],
    ['generation', { generation: 1 }, 'metadata.generation: Invalid value: 1: must not be decremented'],
  ])('%s', (_n, m, msg) => {
    expect(upd(m)).toEqual([msg]);
  });

  it('forbids new finalizers once deletion started', () => {
    const deleting = { ...old, deletionTimestamp: '2024-02-01T00:00:00Z' };
    expect(upd({ deletionTimestamp: deleting.deletionTimestamp, finalizers: ['x/y', 'new/f'] }, deleting)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"new/f"}',
    ]);
    expect(upd({ deletionTimestamp: deleting.deletionTimestamp, finalizers: [] }, deleting)).toEqual([]);
    expect(upd({ finalizers: ['x/y', 'new/f'] })).toEqual([]);
  });
});
