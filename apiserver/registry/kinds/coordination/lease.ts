/**
 * Lease (`coordination.<domain>/v1`, `coordination.k8s.io/v1` under `--group-domain=k8s.io`): a namespaced
 * lock record for leader election and heartbeats, as Kubernetes v1.32 serves it. The server's own leader
 * election writes one (`controllers/leader-election.ts`, in the system namespace), so `kubectl get lease`
 * shows who leads.
 *
 * Field numbers are `k8s.io/api/coordination/v1/generated.proto`'s; every spec field is a Go pointer, so
 * each is optional in protobuf. PUT of a missing Lease creates it (as upstream). MicroTimes are written in
 * their canonical form (UTC, six fractional digits). The table is kubectl's: NAME, HOLDER, AGE.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { microTime } from '../core/event-schemas.js';
import { int32, obj, str, struct } from '../shared/schema-builders.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { canonicalMicroTime } from './micro-time.js';
import { validateLeaseSpec } from './lease-validation.js';

const leaseSpecSchema = obj(
  'LeaseSpec is a specification of a Lease.',
  {
    acquireTime: microTime('The time the current lease was acquired.'),
    holderIdentity: str('The identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must equal the elected LeaseCandidate.metadata.name field.'),
    leaseDurationSeconds: int32(
      'The duration that candidates for a lease need to wait to force acquire it, measured against the time of the last observed renewTime.',
    ),
    leaseTransitions: int32('The number of transitions of a lease between holders.'),
    preferredHolder: str(
      'Signals to a lease holder that the lease has a more optimal holder and should be given up. May only be set if strategy is also set.',
    ),
    renewTime: microTime('The time the current holder of the lease last updated it.'),
    strategy: str(
      'The strategy Coordinated Leader Election uses to pick the leader; a Kubernetes name (OldestEmulationVersion) or a qualified name with a domain.',
    ),
  },
  undefined,
  {
    protobuf: {
      holderIdentity: ptr(1), leaseDurationSeconds: ptr(2), acquireTime: ptr(3), renewTime: ptr(4), leaseTransitions: ptr(5), strategy: ptr(6),
      preferredHolder: ptr(7),
    },
  },
);

const schema = kindSchema(
  'Lease defines a lease concept.',
  { spec: struct(leaseSpecSchema, 'spec contains the specification of the Lease.') },
  undefined,
  { spec: 2 },
);

const holderCell = (lease: KubeObject): string => {
  const holder = (lease.spec as { holderIdentity?: unknown } | undefined)?.holderIdentity;
  return typeof holder === 'string' ? holder : '';
};

export const leases = Object.freeze({
  groupPrefix: 'coordination',
  group: '',
  version: 'v1',
  kind: 'Lease',
  resource: 'leases',
  singular: 'lease',
  namespaced: true,
  schema,
  allowCreateOnUpdate: true,
  table: table(
    [nameColumn, column('Holder', 'string', 'The identity of the holder of a current lease.'), ageColumn],
    (lease, now) => [nameCell(lease), holderCell(lease), ageCell(lease, now)],
  ),

  // Create and update alike (the registry runs `validate` on both); nothing in a Lease is immutable.
  validate(lease: KubeObject): FieldError[] {
    return validateLeaseSpec(lease);
  },

  canonicalize(lease: KubeObject): void {
    const spec = lease.spec as Record<string, unknown> | undefined;
    if (spec === undefined) return;
    for (const f of ['acquireTime', 'renewTime']) {
      const v = spec[f];
      if (typeof v === 'string') spec[f] = canonicalMicroTime(v);
    }
  },
} satisfies KindStrategy);
