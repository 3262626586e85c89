/**
 * The admission chain every write passes through (create, update, patch, apply, delete, delete of a
 * collection item, sub-resource writes, dry runs too): the plugins in order, each phase in turn. The
 * registry calls `admit` before the kind's own pipeline and `validate` after it (registry/generic's
 * `WriteAdmission`); the first plugin to throw ends the request with its Status.
 */
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionPlugin } from './plugin.js';

export interface AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];
  admit(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}

export function admissionChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  const mutating = plugins.filter((p) => p.admit !== undefined);
  const validating = plugins.filter((p) => p.validate !== undefined);
  const handles = (p: AdmissionPlugin, a: AdmissionAttributes): boolean => p.operations === undefined || p.operations.includes(a.operation);
  return {
    plugins,
    async admit(a) {
      for (const p of mutating) if (handles(p, a)) await p.admit!(a);
    },
    async validate(a) {
      for (const p of validating) if (handles(p, a)) await p.validate!(a);
    },
  };
}
