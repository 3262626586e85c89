/**
 * The EndpointSlice controller's two trackers: the trigger time of a sync (the Service's creation at the
 * first sync, then the earliest Ready change since the previous one, none when nothing changed), and the
 * stale-informer check over the controller's own writes.
 */
import type { KubeObject } from '../../api/object.js';
import { createSliceTracker } from './slice-tracker.js';
import { createTriggerTimeTracker, rfc3339Nano } from './trigger-time.js';

const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' } };
const pod = (name: string, readyAt?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  status: readyAt === undefined ? {} : { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readyAt }] },
});
const slice = (uid: string, generation: number): KubeObject => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { uid, generation } });

describe('trigger time', () => {
  it('first sync: the Service creation; then the earliest newer Ready change; nothing: undefined', () => {
    const t = createTriggerTimeTracker();
    expect(rfc3339Nano(t.compute('default/web', svc, [pod('a', '2026-01-01T00:01:00Z')])!)).toBe('2026-01-01T00:00:00Z');
    expect(t.compute('default/web', svc, [pod('a', '2026-01-01T00:01:00Z')])).toBeUndefined();
    const next = t.compute('default/web', svc, [pod('a', '2026-01-01T00:03:00Z'), pod('b', '2026-01-01T00:02:00Z'), pod('c')]);
    expect(rfc3339Nano(next!)).toBe('2026-01-01T00:02:00Z');
    t.deleteService('default/web');
    expect(rfc3339Nano(t.compute('default/web', svc, [])!)).toBe('2026-01-01T00:00:00Z');
  });

  it('formats as Go RFC 3339 with nanoseconds', () => {
    expect(rfc3339Nano(Date.parse('2026-01-01T00:00:00.120Z'))).toBe('2026-01-01T00:00:00.12Z');
    expect(rfc3339Nano(Date.parse('2026-01-01T00:00:00.000Z'))).toBe('2026-01-01T00:00:00Z');
  });
});

describe('slice tracker', () => {
  it('is stale while the informer lacks a written slice, has an older one, or still has a deleted one', () => {
    const t = createSliceTracker();
    const key = 'default/web';
    expect(t.stale(key, [slice('a', 1)])).toBe(false);
    t.update(key, slice('a', 2));
    expect(t.stale(key, [])).toBe(true);
    expect(t.stale(key, [slice('a', 1)])).toBe(true);
    expect(t.stale(key, [slice('a', 2)])).toBe(false);
    expect(t.shouldSync(key, slice('a', 2))).toBe(false);
    expect(t.shouldSync(key, slice('a', 3))).toBe(true);
    t.expectDeletion(key, slice('a', 2));
    expect(t.stale(key, [slice('a', 2)])).toBe(true);
    expect(t.stale(key, [])).toBe(false);
    expect(t.handleDeletion(key, slice('a', 2))).toBe(true);
    t.update(key, slice('b', 1));
    // Deleted by someone else: the Service needs a sync.
    expect(t.handleDeletion(key, slice('b', 1))).toBe(false);
    expect(t.has(key, slice('b', 1))).toBe(false);
  });
});
