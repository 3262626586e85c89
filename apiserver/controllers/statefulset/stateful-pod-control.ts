/**
 * The writes of the StatefulSet controller on pods and claims, after kube 1.32's stateful_pod_control.go,
 * each recorded as kube records it on the set:
 * - create: the pod's missing claims first (`SuccessfulCreate` "create Claim <c> Pod <p> in StatefulSet <s>
 *   success"; a claim being deleted fails the create), then the pod (`SuccessfulCreate` "create Pod <p> in
 *   StatefulSet <s> successful" / `FailedCreate` "... failed error: <message>"), then the claims' owner
 *   references per the retention policy;
 * - delete: with the pod's uid as precondition (`SuccessfulDelete` / `FailedDelete`);
 * - update: identity labels and claim volumes restored, claims per the retention policy, the pod written
 *   with the resourceVersion read (`SuccessfulUpdate` / `FailedUpdate`);
 * - claims are read from the claims' informer; writes go through the registries with the controllers'
 *   field manager. A claim that already exists when created is not an error (the informer lagged).
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import { applyPolicy, claimMatchesPolicy, hasStaleOwnerRef, retentionPolicyOf } from './claim-retention.js';
import {
  claimsFor, identityMatches, ordinalOf, storageMatches, updateIdentity, updateStorage, type StatefulSetLabels,
} from './stateful-pods.js';

export interface PodControlOptions {
  readonly pods: GenericRegistry;
  readonly claims: GenericRegistry;
  /** The claim as the claims' informer last saw it. */
  claim(namespace: string, name: string): KubeObject | undefined;
  readonly labels: StatefulSetLabels;
  readonly recorder?: EventRecorder;
  readonly signal?: AbortSignal;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const title = (verb: string): string => verb.charAt(0).toUpperCase() + verb.slice(1);
const is = (err: unknown, code: number): boolean => isStatusError(err) && err.code === code;

export class StatefulPodControl {
  constructor(private readonly o: PodControlOptions) {}

  private write<T extends object>(extra: T): T & { fieldManager: string; signal?: AbortSignal } {
    return { ...extra, fieldManager: CONTROLLER_FIELD_MANAGER, ...(this.o.signal === undefined ? {} : { signal: this.o.signal }) };
  }

  private recordPod(verb: string, set: KubeObject, pod: KubeObject, err?: unknown): void {
    const name = pod.metadata.name ?? '';
    const setName = set.metadata.name ?? '';
    if (err === undefined) {
      void this.o.recorder?.event(referenceOf(set), 'Normal', `Successful${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${setName} successful`);
    } else {
      void this.o.recorder?.event(referenceOf(set), 'Warning', `Failed${title(verb)}`, `${verb} Pod ${name} in StatefulSet ${setName} failed error: ${errorText(err)}`);
    }
  }

  private recordClaim(verb: string, set: KubeObject, pod: KubeObject, claim: KubeObject, err?: unknown): void {
    const c = claim.metadata.name ?? '';
    const p = pod.metadata.name ?? '';
    const s = set.metadata.name ?? '';
    if (err === undefined) {
      void this.o.recorder?.event(referenceOf(set), 'Normal', `Successful${title(verb)}`, `${verb} Claim ${c} Pod ${p} in StatefulSet ${s} success`);
    } else {
      void this.o.recorder?.event(referenceOf(set), 'Warning', `Failed${title(verb)}`, `${verb} Claim ${c} for Pod ${p} in StatefulSet ${s} failed error: ${errorText(err)}`);
    }
  }

  /** createPersistentVolumeClaims: every missing claim of the pod; one error for all failures. */
  async createClaims(set: KubeObject, pod: KubeObject): Promise<void> {
    const errs: string[] = [];
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = this.o.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
      if (existing !== undefined) {
        if (existing.metadata.deletionTimestamp !== undefined) errs.push(`pvc ${claim.metadata.name ?? ''} is being deleted`);
        continue;
      }
      try {
        await this.o.claims.create(claim.metadata.namespace ?? '', structuredClone(claim), this.write({}));
        this.recordClaim('create', set, pod, claim);
      } catch (err) {
        if (is(err, 409)) continue;
        errs.push(`failed to create PVC ${claim.metadata.name ?? ''}: ${errorText(err)}`);
        this.recordClaim('create', set, pod, claim, err);
      }
    }
    if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  /** CreateStatefulPod: claims, then the pod, then the claims' references. AlreadyExists is thrown unrecorded. */
  async createPod(set: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.createClaims(set, pod);
    } catch (err) {
      this.recordPod('create', set, pod, err);
      throw err;
    }
    let created: KubeObject;
    try {
      created = (await this.o.pods.create(pod.metadata.namespace ?? '', structuredClone(pod), this.write({}))).object;
    } catch (err) {
      if (!is(err, 409)) this.recordPod('create', set, pod, err);
      throw err;
    }
    try {
      await this.updateClaimsForPolicy(set, created);
    } catch (err) {
      this.recordPod('update', set, created, err);
      throw err;
    }
    this.recordPod('create', set, created);
  }

  /** DeleteStatefulPod, with the pod's uid as precondition. */
  async deletePod(set: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.o.pods.delete(pod.metadata.namespace ?? '', pod.metadata.name ?? '', {
        preconditions: { uid: pod.metadata.uid ?? '' },
        ...(this.o.signal === undefined ? {} : { signal: this.o.signal }),
      });
      this.recordPod('delete', set, pod);
    } catch (err) {
      this.recordPod('delete', set, pod, err);
      throw err;
    }
  }

  /** ClaimsMatchRetentionPolicy: every existing claim of the pod has the references the policy wants. */
  claimsMatchPolicy(set: KubeObject, pod: KubeObject): boolean {
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const current = this.o.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
      if (current !== undefined && !claimMatchesPolicy(current, set, pod)) return false;
    }
    return true;
  }

  /** UpdatePodClaimForRetentionPolicy: fixes the references of each existing claim of the pod. */
  async updateClaimsForPolicy(set: KubeObject, pod: KubeObject): Promise<void> {
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const current = this.o.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
      if (current === undefined || claimMatchesPolicy(current, set, pod)) continue;
      const copy = structuredClone(current);
      applyPolicy(copy, set, pod);
      try {
        await this.o.claims.update(copy.metadata.namespace ?? '', copy.metadata.name ?? '', copy, this.write({}));
      } catch (err) {
        throw new Error(`could not update claim ${copy.metadata.name ?? ''} for delete policy ownerRefs: ${errorText(err)}`);
      }
    }
  }

  /** PodClaimIsStale: with whenScaled Delete, a claim still owned by an earlier pod of this name. */
  claimIsStale(set: KubeObject, pod: KubeObject): boolean {
    if (retentionPolicyOf(set).whenScaled === 'Retain') return false;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const current = this.o.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
      if (current !== undefined && hasStaleOwnerRef(current, pod)) return true;
    }
    return false;
  }

  /** UpdateStatefulPod: identity, storage and claim references restored; the pod written if it changed. */
  async updatePod(set: KubeObject, pod: KubeObject): Promise<void> {
    const copy = structuredClone(pod);
    let consistent = true;
    try {
      if (!identityMatches(set, copy, this.o.labels)) {
        updateIdentity(set, copy, this.o.labels);
        consistent = false;
      }
      if (!storageMatches(set, copy)) {
        updateStorage(set, copy);
        consistent = false;
        await this.createClaims(set, copy);
      }
      if (!this.claimsMatchPolicy(set, copy)) {
        await this.updateClaimsForPolicy(set, copy);
      }
    } catch (err) {
      this.recordPod('update', set, copy, err);
      throw err;
    }
    if (consistent) return;
    try {
      await this.o.pods.update(copy.metadata.namespace ?? '', copy.metadata.name ?? '', copy, this.write({}));
      this.recordPod('update', set, copy);
    } catch (err) {
      this.recordPod('update', set, copy, err);
      throw err;
    }
  }
}
