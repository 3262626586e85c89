/**
 * Lease spec validation as Kubernetes v1.32 (`ValidateLeaseSpec`), the same on create and update (a Lease
 * has no immutable spec fields):
 * - `leaseDurationSeconds`, when set, must be greater than 0; `leaseTransitions`, when set, at least 0;
 * - `strategy`, when set, is a Kubernetes strategy name (`OldestEmulationVersion`) or, with a `/`, a
 *   qualified name (`example.com/mine`). Upstream reports it at `spec.strategy.strategy` (its path gets the
 *   child twice); we keep that path so clients see the same `field`;
 * - a non-empty `preferredHolder` needs a non-empty `strategy`.
 * The CoordinatedLeaderElection gate (alpha, off in 1.32) does not drop these fields in the Lease strategy
 * upstream, so neither do we. MicroTimes need no check beyond the schema's date-time format.
 */
import type { KubeObject } from '../../../api/object.js';
import { isQualifiedName } from '../../../validation/names.js';
import { FieldPath, forbidden, invalidValue, notSupported, type FieldError } from '../../../validation/field-error.js';

/** The strategies Kubernetes defines (names without a `/`). */
export const LEASE_STRATEGIES: readonly string[] = Object.freeze(['OldestEmulationVersion']);

const spec = FieldPath.root('spec');

export function validateLeaseSpec(lease: KubeObject): FieldError[] {
  const s = (lease.spec ?? {}) as Record<string, unknown>;
  const errs: FieldError[] = [];
  const duration = s.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) errs.push(invalidValue(spec.child('leaseDurationSeconds'), duration, 'must be greater than 0'));
  const transitions = s.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(invalidValue(spec.child('leaseTransitions'), transitions, 'must be greater than or equal to 0'));
  }
  const strategy = s.strategy;
  if (typeof strategy === 'string') errs.push(...validateStrategy(strategy));
  const preferred = s.preferredHolder;
  if (typeof preferred === 'string' && preferred !== '' && (typeof strategy !== 'string' || strategy === '')) {
    errs.push(forbidden(spec.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

function validateStrategy(strategy: string): FieldError[] {
  const at = spec.child('strategy').child('strategy');
  if (!strategy.includes('/')) return LEASE_STRATEGIES.includes(strategy) ? [] : [notSupported(at, strategy, LEASE_STRATEGIES)];
  return isQualifiedName(strategy).map((msg) => invalidValue(at, strategy, msg));
}
