/**
 * The graph builder alone, driven as the monitors drive it, with a sink that records what the collector is
 * asked: the previous state an update is compared with is the node's (the monitors keep no copy), and a
 * monitor's whole state (first, or after a re-watch) drops what it no longer holds and changes nothing else.
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../registry/generic/delete-propagation.js';
import type { Identity } from './graph.js';
import { GraphBuilder } from './graph-builder.js';

let asked: string[];
let graph: GraphBuilder;

beforeEach(() => {
  asked = [];
  graph = new GraphBuilder({
    attemptToDelete: (node) => asked.push(`delete ${node.identity.name}`),
    attemptToOrphan: (node) => asked.push(`orphan ${node.identity.name}`),
    invalidNamespace: (dep) => asked.push(`invalid ${dep.identity.name}`),
    absent: (identity) => asked.push(`absent ${identity.name}`),
  });
});

const id = (name: string, kind = 'ConfigMap'): Identity => ({ apiVersion: 'v1', kind, name, uid: `uid-${name}`, namespace: 'ns' });
const ref = (name: string): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: `uid-${name}` });
const obj = (name: string, o: { owners?: string[]; finalizers?: string[]; deleting?: boolean } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'ns',
    uid: `uid-${name}`,
    ...(o.owners === undefined ? {} : { ownerReferences: o.owners.map(ref) }),
    ...(o.finalizers === undefined ? {} : { finalizers: o.finalizers }),
    ...(o.deleting === true ? { deletionTimestamp: '2026-11-25T00:00:00Z' } : {}),
  },
});

test('an orphan deletion is acted on when it starts, not again on later updates of the deleting object', () => {
  graph.upsert(id('owner'), obj('owner'));
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_ORPHAN] }));
  expect(asked).toEqual([]);
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_ORPHAN], deleting: true }));
  expect(asked).toEqual(['orphan owner']);
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_ORPHAN, 'example.com/x'], deleting: true }));
  expect(asked).toEqual(['orphan owner']);
  const node = graph.nodes.get('uid-owner')!;
  expect([node.beingDeleted, node.orphanFinalizer, node.foregroundFinalizer]).toEqual([true, true, false]);
});

test('a foreground deletion first seen deleting (no previous state) starts, and marks the node', () => {
  graph.upsert(id('dep'), obj('dep', { owners: ['owner'] }));
  asked = [];
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_FOREGROUND], deleting: true }));
  expect(asked).toEqual(['delete dep', 'delete owner']);
  expect(graph.nodes.get('uid-owner')!.deletingDependents).toBe(true);
  asked = [];
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_FOREGROUND], deleting: true }));
  expect(asked).toEqual([]);
});

test('a finalizer added to an object already deleting starts that deletion', () => {
  graph.upsert(id('owner'), obj('owner', { finalizers: ['example.com/x'], deleting: true }));
  graph.upsert(id('owner'), obj('owner', { finalizers: ['example.com/x', FINALIZER_ORPHAN], deleting: true }));
  expect(asked).toEqual(['orphan owner']);
});

test('a whole state drops the nodes of its kind it no longer holds, and repeats nothing for the rest', () => {
  graph.upsert(id('owner'), obj('owner', { finalizers: [FINALIZER_ORPHAN], deleting: true }));
  graph.upsert(id('dep'), obj('dep', { owners: ['owner'] }));
  graph.upsert(id('gone'), obj('gone'));
  graph.upsert(id('child', 'Secret'), { ...obj('child', { owners: ['gone'] }), kind: 'Secret' });
  graph.upsert(id('other', 'Secret'), { ...obj('other'), kind: 'Secret' });
  asked = [];
  graph.replace('v1', 'ConfigMap', [
    { identity: id('owner'), obj: obj('owner', { finalizers: [FINALIZER_ORPHAN], deleting: true }) },
    { identity: id('dep'), obj: obj('dep', { owners: ['owner'] }) },
  ]);
  // `gone` went while the watch was down: deleted, its dependent looked at; the Secrets are another kind's.
  expect(asked).toEqual(['absent gone', 'delete child']);
  expect([...graph.nodes.keys()].sort()).toEqual(['uid-child', 'uid-dep', 'uid-other', 'uid-owner']);
  expect([...graph.nodes.get('uid-owner')!.dependents].map((n) => n.identity.name)).toEqual(['dep']);
});

test('a whole state leaves virtual nodes to the collector', () => {
  graph.upsert(id('dep'), obj('dep', { owners: ['never'] }));
  expect(asked).toEqual(['delete never']);
  graph.replace('v1', 'ConfigMap', [{ identity: id('dep'), obj: obj('dep', { owners: ['never'] }) }]);
  expect(graph.nodes.get('uid-never')?.observed).toBe(false);
  expect(asked).toEqual(['delete never']);
});
