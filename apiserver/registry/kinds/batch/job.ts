/**
 * Job (`batch/v1`, the same group in both domain modes): a run-to-completion task. Namespaced, with a
 * `status` sub-resource, in the `all` category, no short names (as Kubernetes). As Kubernetes v1.32's job
 * strategy:
 * - create: the defaults (job-defaults.ts), the generated selector and template labels unless
 *   manualSelector is true (`controller-uid`, `job-name` and `batch.<legacy domain>/...` forms), an empty
 *   status, generation 1; the job's labels default to the template's;
 * - update: the stored status is kept, the generation moves with the spec, the immutable fields and the
 *   suspended-job template rules apply (job-validation.ts);
 * - `/status`: everything but the status is kept (the registry's default), and the status-write
 *   invariants hold (job-status-validation.ts);
 * - field selector `status.successful` (the succeeded count); DELETE answers a Status; kubectl's table
 *   (job-table.ts).
 * The job controller itself (pods, conditions) belongs to a controller manager, not to this server.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import { isDNS1123Label } from '../../../validation/names.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { isObject } from '../core/pod/json-values.js';
import { copyTemplateLabels, defaultJob, generateSelector, specOf } from './job-defaults.js';
import { JOB_FIELDS, JOB_PROPERTIES } from './job-schema.js';
import { validateJobStatusUpdate } from './job-status-validation.js';
import { jobTable } from './job-table.js';
import { hasPrefixedLabels, validateJob, validateJobSpecUpdate } from './job-validation.js';

const schema = kindSchema('Job represents the configuration of a single job.', JOB_PROPERTIES, undefined, JOB_FIELDS);

const INDEXED_SOFT_LIMIT_WARNING =
  'spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail';

/** WarningsForJobSpec (the pod template's own warnings aside). */
function specWarnings(job: KubeObject): string[] {
  const spec = specOf(job);
  const completions = typeof spec.completions === 'number' ? spec.completions : 0;
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 0;
  return spec.completionMode === 'Indexed' && completions > 100_000 && parallelism > 10_000 ? [INDEXED_SOFT_LIMIT_WARNING] : [];
}

export const jobs = Object.freeze({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  resource: 'jobs',
  singular: 'job',
  namespaced: true,
  categories: Object.freeze(['all']),
  subresources: Object.freeze(['status'] as const),
  schema,
  tracksGeneration: true,
  table: jobTable,
  selectableFields: Object.freeze({
    'status.successful': (job: KubeObject): string => String(isObject(job.status) && typeof job.status.succeeded === 'number' ? job.status.succeeded : 0),
  }),

  prepareForCreate(job: KubeObject, ctx: StrategyContext): void {
    defaultJob(job);
    // The decoder's default (the user's template labels) comes before the generated ones are added.
    copyTemplateLabels(job);
    generateSelector(job, ctx.naming);
    copyTemplateLabels(job);
    job.status = {};
  },

  prepareForUpdate(job: KubeObject): void {
    defaultJob(job);
    copyTemplateLabels(job);
  },

  validate(job: KubeObject, ctx: StrategyContext): FieldError[] {
    // Updates are validated by validateUpdate, whose rules depend on the stored job.
    return ctx.operation === 'create' ? validateJob(job, ctx.naming, true) : [];
  },

  validateUpdate(job: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] {
    // Jobs created before the prefixed labels existed need not have them.
    return [...validateJob(job, ctx.naming, hasPrefixedLabels(old, ctx.naming)), ...validateJobSpecUpdate(job, old)];
  },

  warnings(job: KubeObject, old: KubeObject | undefined): string[] {
    if (old !== undefined) return job.metadata.generation !== old.metadata.generation ? specWarnings(job) : [];
    const msgs = isDNS1123Label(job.metadata.name ?? '');
    const warnings =
      msgs.length === 0
        ? []
        : [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`];
    return [...warnings, ...specWarnings(job)];
  },

  validateStatusUpdate: (job: KubeObject, old: KubeObject): FieldError[] => validateJobStatusUpdate(job, old),
} satisfies KindStrategy);
