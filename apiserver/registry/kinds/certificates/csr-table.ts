/**
 * `kubectl get csr` as Kubernetes 1.32 prints it: NAME, AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION,
 * CONDITION. CONDITION: Denied, else Approved, else Pending; then `,Failed` and `,Issued` (a certificate).
 */
import type { KubeObject } from '../../../api/object.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { humanDuration } from '../shared/human-duration.js';
import { APPROVED, certificateOf, conditionsOf, DENIED, FAILED, specOf } from './csr-validation.js';

/** The CONDITION cell. */
export function csrCondition(csr: KubeObject): string {
  const types = new Set(conditionsOf(csr).map((c) => c.type));
  let s = types.has(DENIED) ? 'Denied' : types.has(APPROVED) ? 'Approved' : 'Pending';
  if (types.has(FAILED)) s += ',Failed';
  if (certificateOf(csr) !== '') s += ',Issued';
  return s;
}

export const csrTable = table(
  [
    nameColumn,
    ageColumn,
    column('SignerName', 'string', 'The name of the signer the request is for.'),
    column('Requestor', 'string', 'The user who created the request.'),
    column('RequestedDuration', 'string', 'The validity the request asks for (spec.expirationSeconds).'),
    column('Condition', 'string', 'Approved, Denied or Pending, then Failed and Issued.'),
  ],
  (csr, now) => {
    const spec = specOf(csr) as { signerName?: string; expirationSeconds?: number };
    const requestor = (csr.spec as { username?: string } | undefined)?.username ?? '';
    const duration = typeof spec.expirationSeconds === 'number' ? humanDuration(spec.expirationSeconds * 1000) : '<none>';
    return [nameCell(csr), ageCell(csr, now), spec.signerName ?? '', requestor, duration, csrCondition(csr)];
  },
);
