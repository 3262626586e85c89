/**
 * kube's pod ranking for scale-down, rule by rule: each case pairs two pods that differ in one rule only
 * (or in an earlier rule that must win), and the first returned is the one to delete first.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { deletionCost, podsToDelete } from './pod-ranking.js';

const names = naming('k8s.io');
const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (s: number): string => new Date(NOW - s * 1000).toISOString().slice(0, 19) + 'Z';

interface P {
  node?: string;
  phase?: string;
  ready?: boolean;
  readyAgo?: number;
  createdAgo?: number;
  restarts?: number;
  cost?: string;
  uid?: string;
}

function pod(name: string, p: P = {}): KubeObject {
  const status: Record<string, unknown> = { phase: p.phase ?? 'Running' };
  if (p.ready !== undefined) status.conditions = [{ type: 'Ready', status: p.ready ? 'True' : 'False', ...(p.readyAgo === undefined ? {} : { lastTransitionTime: ago(p.readyAgo) }) }];
  if (p.restarts !== undefined) status.containerStatuses = [{ restartCount: p.restarts }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      uid: p.uid ?? name,
      creationTimestamp: ago(p.createdAgo ?? 1000),
      ...(p.cost === undefined ? {} : { annotations: { 'controller.kubernetes.io/pod-deletion-cost': p.cost } }),
    },
    spec: { nodeName: p.node ?? 'n1' },
    status,
  };
}

const first = (a: KubeObject, b: KubeObject, related: KubeObject[] = []): string =>
  podsToDelete([a, b], related, 1, NOW, names)[0]!.metadata.name!;

describe('podsToDelete', () => {
  it.each<[string, P, P]>([
    ['unscheduled before scheduled, even if ready', { node: '', ready: true, readyAgo: 10 }, { phase: 'Pending' }],
    ['Pending before Running', { phase: 'Pending' }, {}],
    ['Unknown before Running', { phase: 'Unknown' }, {}],
    ['not ready before ready', { ready: false }, { ready: true, readyAgo: 10, cost: '-5' }],
    ['lower deletion cost first', { cost: '-1' }, { cost: '3' }],
    ['an invalid cost counts as 0', { cost: 'abc' }, { cost: '1' }],
    ['ready for a shorter time first', { ready: true, readyAgo: 10 }, { ready: true, readyAgo: 100 }],
    ['an unknown ready time is the most recent', { ready: true }, { ready: true, readyAgo: 5 }],
    ['more restarts first', { restarts: 3 }, { restarts: 1 }],
    ['newer before older', { createdAgo: 10 }, { createdAgo: 1000 }],
  ])('%s', (_name, a, b) => {
    expect(first(pod('a', a), pod('b', b))).toBe('a');
    expect(first(pod('b', b), pod('a', a))).toBe('a');
  });

  it('times in the same log2 bucket tie, broken by the smaller uid', () => {
    // 1000 s and 1050 s ago share floor(log2(ns)) = 39 (2^40 ns is about 1099.5 s).
    expect(first(pod('older', { createdAgo: 1050, uid: 'b' }), pod('newer', { createdAgo: 1000, uid: 'z' }))).toBe('older');
    expect(first(pod('ready-a', { ready: true, readyAgo: 1050, uid: 'a' }), pod('ready-b', { ready: true, readyAgo: 1000, uid: 'b' }))).toBe('ready-a');
  });

  it('pods doubled up on a node with related pods go first', () => {
    const a = pod('a', { node: 'busy' });
    const b = pod('b', { node: 'quiet', cost: undefined });
    const related = [a, b, pod('r1', { node: 'busy' }), pod('r2', { node: 'busy' }), pod('gone', { node: 'quiet', phase: 'Failed' })];
    expect(first(b, a, related)).toBe('a');
  });

  it('returns every pod when asked for at least as many', () => {
    expect(podsToDelete([pod('a'), pod('b')], [], 5, NOW, names)).toHaveLength(2);
  });

  it('reads the deletion cost as an int32', () => {
    const annotation = 'controller.kubernetes.io/pod-deletion-cost';
    const with_ = (v: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { annotations: { [annotation]: v } } });
    expect(deletionCost(with_('-42'), annotation)).toBe(-42);
    expect(deletionCost(with_('2147483648'), annotation)).toBe(0);
    expect(deletionCost(with_(' 1'), annotation)).toBe(0);
    expect(deletionCost(with_('1.5'), annotation)).toBe(0);
  });
});
