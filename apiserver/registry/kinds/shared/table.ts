/**
 * Table building blocks shared by the kinds (`kubectl get` columns, computed by the server as
 * kube-apiserver's printers do). Column names use Kubernetes' spelling (`Name`, `Age`; kubectl upper-cases
 * them). A kind's convention is `table(columns, cells)`; kinds without printers get `defaultTable`
 * (NAME and CREATED AT, as Kubernetes' default table convertor).
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableColumn, TableConvention } from '../../kind-strategy.js';
import { humanDuration } from './human-duration.js';

export const nameColumn: TableColumn = Object.freeze({
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name of the object, unique within its namespace (or the cluster for cluster-scoped kinds).',
  priority: 0,
});

/** AGE: Kubernetes types it `string` (the cell is a human duration, not a timestamp). */
export const ageColumn: TableColumn = Object.freeze({
  name: 'Age',
  type: 'string',
  format: '',
  description: 'Time since the server created the object (metadata.creationTimestamp).',
  priority: 0,
});

/** A plain column of the given type; `priority` 1 shows it only with `-o wide`. */
export const column = (name: string, type: string, description: string, priority = 0): TableColumn =>
  Object.freeze({ name, type, format: '', description, priority });

/**
 * The AGE cell: the human duration from `metadata.creationTimestamp` to `now`. An absent or unparsable
 * timestamp prints `<unknown>`, as kubectl does for a zero time.
 */
export function ageCell(obj: KubeObject, now: Date): string {
  const ts = obj.metadata.creationTimestamp;
  if (ts === undefined || ts === '') return '<unknown>';
  const created = Date.parse(ts);
  if (Number.isNaN(created)) return '<unknown>';
  return humanDuration(now.getTime() - created);
}

/** The NAME cell. */
export const nameCell = (obj: KubeObject): string => obj.metadata.name ?? '';

/** A convention from its columns and a cell function (one cell per column, in order). */
export function table(columns: readonly TableColumn[], cells: (obj: KubeObject, now: Date) => readonly unknown[]): TableConvention {
  return Object.freeze({ columns: Object.freeze([...columns]), cells });
}

/**
 * Kubernetes' default: NAME and CREATED AT (type `date`), the timestamp as RFC 3339 in UTC without
 * fractional seconds. An absent timestamp prints Go's zero time, as upstream does.
 */
export const defaultTable: TableConvention = table(
  [nameColumn, Object.freeze({ name: 'Created At', type: 'date', format: '', description: 'Time the server created the object (metadata.creationTimestamp).', priority: 0 })],
  (obj) => [nameCell(obj), createdAt(obj.metadata.creationTimestamp)],
);

function createdAt(ts: string | undefined): string {
  const t = ts === undefined ? Number.NaN : Date.parse(ts);
  if (Number.isNaN(t)) return '0001-01-01T00:00:00Z';
  return `${new Date(t).toISOString().slice(0, 19)}Z`;
}

/** The number of entries of a map-valued field (`data`), 0 when absent. */
export function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  for (const _ in value) n++;
  return n;
}
