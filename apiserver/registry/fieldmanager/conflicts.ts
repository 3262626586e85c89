/**
 * The 409 of an apply that would change fields other managers own, worded as Kubernetes words it
 * (`apimachinery/pkg/util/managedfields/internal/conflict.go`):
 *
 *   Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.k
 *   Apply failed with 2 conflicts: conflicts with "a":\n- .data.x\nconflicts with "b" using v1:\n- .data.y
 *
 * with one cause per conflicting field: `{reason: FieldManagerConflict, message: 'conflict with "mgr"
 * using v1', field: '.data.k'}`. An Update manager is printed with its apiVersion, an applier without;
 * a sub-resource adds `with subresource "status"`.
 */
import { StatusError } from '../../errors/status-error.js';
import { pathString, type Path } from './fieldpath/path-element.js';
import { managerId, type ManagerEntry } from './managers.js';

export interface Conflict {
  readonly manager: ManagerEntry;
  readonly path: Path;
}

export function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== '') s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  return e.operation === 'Update' ? `${s} using ${e.apiVersion}` : s;
}

export function conflictError(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => {
    const ma = managerId(a.manager);
    const mb = managerId(b.manager);
    return ma < mb ? -1 : ma > mb ? 1 : 0;
  });
  const causes = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.manager)}: ${pathString(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let current = '';
    for (const c of sorted) {
      const m = printManager(c.manager);
      if (m !== current) {
        lines.push(`conflicts with ${m}:`);
        current = m;
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError('Conflict', message, { causes });
}
