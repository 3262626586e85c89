/**
 * `kubectl get jobs` columns as kube-apiserver 1.32 prints them: NAME, STATUS, COMPLETIONS, DURATION, AGE,
 * and with `-o wide` CONTAINERS, IMAGES, SELECTOR.
 * - STATUS: the first of Complete, Failed (conditions with status True), Terminating (being deleted),
 *   Suspended, FailureTarget, else Running;
 * - COMPLETIONS: `<succeeded>/<completions>`; without completions `<succeeded>/1`, or
 *   `<succeeded>/1 of <parallelism>` when parallelism is above 1;
 * - DURATION: empty before startTime, then the time since startTime until completionTime (or now);
 * - SELECTOR: the selector in label-selector syntax, `<none>` when it selects nothing.
 */
import type { KubeObject } from '../../../api/object.js';
import { formatLabelSelector } from '../../../selectors/label-format.js';
import type { TableConvention } from '../../kind-strategy.js';
import { arrayAt, isObject, objectAt, objectItems, type JsonObject } from '../core/pod/json-values.js';
import { containerCells, wideContainerColumns } from '../core/pod/template-cells.js';
import { humanDuration } from '../shared/human-duration.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

const specOf = (job: KubeObject): JsonObject => (isObject(job.spec) ? job.spec : {});
const statusOf = (job: KubeObject): JsonObject => (isObject(job.status) ? job.status : {});
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function hasCondition(job: KubeObject, type: string): boolean {
  for (const [, c] of objectItems(arrayAt(statusOf(job), 'conditions'))) if (c.type === type && c.status === 'True') return true;
  return false;
}

export function jobStatusCell(job: KubeObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp !== undefined && job.metadata.deletionTimestamp !== null) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

export function completionsCell(job: KubeObject): string {
  const spec = specOf(job);
  const succeeded = int(statusOf(job).succeeded) ?? 0;
  const completions = int(spec.completions);
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = int(spec.parallelism) ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function durationCell(job: KubeObject, now: Date): string {
  const status = statusOf(job);
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : Number.NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : Number.NaN;
  return humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
}

export const jobTable: TableConvention = table(
  [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of pods which reached phase Succeeded, out of the completions the job needs.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    ...wideContainerColumns,
    column('Selector', 'string', 'A label query over pods that should match the pod count.', 1),
  ],
  (job, now) => [
    nameCell(job),
    jobStatusCell(job),
    completionsCell(job),
    durationCell(job, now),
    ageCell(job, now),
    ...containerCells(objectAt(specOf(job), 'template')),
    formatLabelSelector(specOf(job).selector),
  ],
);
