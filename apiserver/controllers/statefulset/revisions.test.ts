/**
 * Revision hashing and naming as kube's pkg/controller/history (checked against a revision kube 1.33 wrote:
 * its testdata names it `test-c77f6d978`), Go's JSON form of the data, the pods' identity helpers and the
 * retention policy's owner references.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { statefulSets } from '../../registry/kinds/apps/statefulset.js';
import { createAs } from '../../registry/kinds/storage/testing.js';
import { applyPolicy, claimMatchesPolicy } from './claim-retention.js';
import {
  applyRevision, equalRevision, fnv32, goJson, hashRevisionData, newRevision, nextRevision, revisionName, safeEncodeString, sortRevisions,
} from './revisions.js';
import { claimsFor, newVersionedPod, parentAndOrdinal, statefulSetLabels, storageMatches, identityMatches } from './stateful-pods.js';

const k8s = statefulSetLabels(naming('k8s.io'));
const platform = statefulSetLabels(naming('platform.io'));

/** The data of kube's compatibility_revision_1.33.0.json (pkg/controller/statefulset/testdata). */
const KUBE_DATA = {
  spec: {
    template: {
      $patch: 'replace',
      metadata: { annotations: { test: 'value' }, creationTimestamp: null, labels: { app: 'foo' } },
      spec: {
        containers: [{ image: 'test', imagePullPolicy: 'Always', name: 'test', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
        dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30,
      },
    },
  },
};

function set(o: { name?: string; replicas?: number; start?: number; partition?: number; policy?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: o.name ?? 'web', namespace: 'default', uid: 'set-uid', annotations: { note: 'a<b' } },
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'web' } },
      ordinals: { start: o.start ?? 0 },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: o.partition ?? 0 } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1', volumeMounts: [{ name: 'data', mountPath: '/d' }] }], volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', emptyDir: {} }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'db' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...(o.policy === undefined ? {} : { persistentVolumeClaimRetentionPolicy: o.policy }),
    },
    status: { replicas: 0 },
  };
}

describe('revision hashing (kube pkg/controller/history)', () => {
  it('hashes data as kube does: kube 1.33 named this revision test-c77f6d978', () => {
    expect(hashRevisionData(KUBE_DATA, 0)).toBe('c77f6d978');
    expect(revisionName('test', hashRevisionData(KUBE_DATA, 0))).toBe('test-c77f6d978');
    // The collision count is part of the hash: another count, another name.
    expect(hashRevisionData(KUBE_DATA, 1)).not.toBe('c77f6d978');
  });

  it('a set made from kube\'s compatibility manifest gets kube\'s revision name (test-c77f6d978)', () => {
    const kubeSet = createAs(statefulSets, {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'test', namespace: 'default' },
      spec: {
        serviceName: 'x', selector: { matchLabels: { app: 'foo' } },
        template: { metadata: { annotations: { test: 'value' }, labels: { app: 'foo' } }, spec: { containers: [{ name: 'test', image: 'test' }] } },
      },
    }).obj;
    const rev = newRevision(kubeSet, 1, 0, k8s.revisionHash);
    expect(rev.metadata.name).toBe('test-c77f6d978');
    expect(rev.data).toEqual(KUBE_DATA);
    // A stored copy that lost the null is still the same revision.
    const stripped = structuredClone(rev);
    delete (stripped.data as any).spec.template.metadata.creationTimestamp;
    expect(equalRevision(stripped, rev)).toBe(true);
    expect(hashRevisionData(stripped.data, 0)).toBe('c77f6d978');
  });

  it('FNV-1 32, SafeEncodeString and Go JSON', () => {
    expect(fnv32(new Uint8Array())).toBe(0x811c9dc5);
    expect(fnv32(new TextEncoder().encode('a'))).toBe(0x050c5d7e);
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
    expect(goJson({ b: 1, a: ['<&>', null, true], c: { z: 'x\u2028' } })).toBe('{"a":["\\u003c\\u0026\\u003e",null,true],"b":1,"c":{"z":"x\\u2028"}}');
    expect(revisionName('x'.repeat(300), 'h')).toBe(`${'x'.repeat(223)}-h`);
  });

  it('a revision of a set: the template as a replace patch, template labels, set annotations, controller reference', () => {
    const rev = newRevision(set(), 4, 0, k8s.revisionHash);
    const hash = hashRevisionData(rev.data, 0);
    expect(rev).toMatchObject({
      apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: 4,
      metadata: {
        name: `web-${hash}`, namespace: 'default', labels: { app: 'web', 'controller.kubernetes.io/hash': hash }, annotations: { note: 'a<b' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true }],
      },
    });
    expect((rev.data as any).spec.template.$patch).toBe('replace');
    expect(newRevision(set(), 4, 0, platform.revisionHash).metadata.labels).toHaveProperty(['controller.platform.io/hash'], hash);
    // Applying it restores the template without the patch directive.
    const other = set();
    (other.spec as any).template.spec.containers[0].image = 'nginx:2';
    expect((applyRevision(other, rev).spec as any).template).toEqual((set().spec as any).template);
    expect(equalRevision(rev, newRevision(set(), 9, 3, k8s.revisionHash))).toBe(true);
    expect(equalRevision(rev, newRevision(other, 4, 0, k8s.revisionHash))).toBe(false);
  });

  it('sorts by revision, then creation time, then name; the next revision follows the last', () => {
    const r = (name: string, revision: number, t: string): KubeObject => ({ metadata: { name, creationTimestamp: t }, revision });
    const sorted = sortRevisions([r('c', 2, '2024-01-01T00:00:00Z'), r('b', 1, '2024-01-02T00:00:00Z'), r('a', 1, '2024-01-02T00:00:00Z'), r('d', 1, '2023-01-01T00:00:00Z')]);
    expect(sorted.map((x) => x.metadata.name)).toEqual(['d', 'a', 'b', 'c']);
    expect(nextRevision(sorted)).toBe(3);
    expect(nextRevision([])).toBe(1);
  });
});

describe('stateful pod identity', () => {
  it('reads parent and ordinal from the name', () => {
    expect(parentAndOrdinal('web-0')).toEqual({ parent: 'web', ordinal: 0 });
    expect(parentAndOrdinal('my-web-12')).toEqual({ parent: 'my-web', ordinal: 12 });
    expect(parentAndOrdinal('web')).toEqual({ parent: '', ordinal: -1 });
    expect(parentAndOrdinal('web-99999999999')).toEqual({ parent: '', ordinal: -1 });
  });

  it('makes the pod of an ordinal: name, hostname, subdomain, labels, claim volumes first, revision by partition', () => {
    const s = set({ start: 5, partition: 1 });
    const current = newVersionedPod(s, s, 'web-cur', 'web-upd', 5, k8s);
    expect(current.metadata).toMatchObject({
      name: 'web-5', namespace: 'default',
      labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-5', 'apps.kubernetes.io/pod-index': '5', 'controller-revision-hash': 'web-cur' },
    });
    expect(current.spec).toMatchObject({ hostname: 'web-5', subdomain: 'nginx' });
    expect((current.spec as any).volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-5' } }, { name: 'cfg', emptyDir: {} }]);
    expect(newVersionedPod(s, s, 'web-cur', 'web-upd', 6, platform).metadata.labels).toMatchObject({
      'statefulset.platform.io/pod-name': 'web-6', 'apps.platform.io/pod-index': '6', 'controller-revision-hash': 'web-upd',
    });
    expect(identityMatches(s, current, k8s)).toBe(true);
    expect(identityMatches(s, current, platform)).toBe(false);
    expect(storageMatches(s, current)).toBe(true);
    expect(storageMatches(s, { ...current, spec: { volumes: [] } })).toBe(false);
  });

  it('claims: <template>-<set>-<ordinal>, template labels under the selector labels', () => {
    const claim = claimsFor(set(), 2).get('data')!;
    expect(claim).toEqual({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-web-2', namespace: 'default', labels: { tier: 'db', app: 'web' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
  });
});

describe('retention policy owner references', () => {
  const pod = (name: string): KubeObject => ({ metadata: { name, uid: `${name}-uid` } });
  const refsAfter = (policy: Record<string, string>, podName: string): string[] => {
    const claim: KubeObject = { metadata: { name: 'data', ownerReferences: [{ apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'other' }] } };
    const s = set({ replicas: 2, policy });
    applyPolicy(claim, s, pod(podName));
    expect(claimMatchesPolicy(claim, s, pod(podName))).toBe(true);
    return (claim.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}${r.controller === true ? '*' : ''}`);
  };
  it.each([
    ['Retain', 'Retain', ['Other/o'], ['Other/o']],
    ['Retain', 'Delete', ['Other/o', 'StatefulSet/web*'], ['Other/o', 'StatefulSet/web*']],
    ['Delete', 'Retain', ['Other/o'], ['Other/o', 'Pod/web-5*']],
    ['Delete', 'Delete', ['Other/o', 'StatefulSet/web*'], ['Other/o', 'Pod/web-5*']],
  ])('whenScaled %s, whenDeleted %s', (whenScaled, whenDeleted, inRange, scaledDown) => {
    expect(refsAfter({ whenScaled, whenDeleted }, 'web-1')).toEqual(inRange);
    expect(refsAfter({ whenScaled, whenDeleted }, 'web-5')).toEqual(scaledDown);
  });

  it('a claim naming a previous set or pod of the same name is left alone', () => {
    const s = set({ policy: { whenScaled: 'Delete', whenDeleted: 'Delete' } });
    const claim: KubeObject = { metadata: { name: 'data', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'old' }] } };
    expect(claimMatchesPolicy(claim, s, pod('web-0'))).toBe(true);
  });

  it('a plain reference to the set is made a controller reference; another controller keeps the claim', () => {
    const s = set({ policy: { whenScaled: 'Retain', whenDeleted: 'Delete' } });
    const plain: KubeObject = { metadata: { name: 'data', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid' }] } };
    expect(claimMatchesPolicy(plain, s, pod('web-0'))).toBe(false);
    applyPolicy(plain, s, pod('web-0'));
    expect(plain.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid', controller: true, blockOwnerDeletion: true }]);
    const foreign: KubeObject = { metadata: { name: 'data', ownerReferences: [{ apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'o', controller: true }] } };
    expect(claimMatchesPolicy(foreign, s, pod('web-0'))).toBe(true);
    // Our own references beside another controller are removed, none added.
    const both: KubeObject = { metadata: { name: 'data', ownerReferences: [...foreign.metadata.ownerReferences!, { apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: 'web-0-uid' }] } };
    expect(claimMatchesPolicy(both, s, pod('web-0'))).toBe(false);
    applyPolicy(both, s, pod('web-0'));
    expect(both.metadata.ownerReferences).toEqual(foreign.metadata.ownerReferences);
  });
});
