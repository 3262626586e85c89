/**
 * The admission chain every write passes through (create, update, patch, apply, delete, delete of a
 * collection item, sub-resource writes, dry runs too): the plugins in order, each phase in turn. The
 * registry calls `admit` before the kind's own pipeline and `validate` after it (registry/generic's
 * `WriteAdmission`); the first plugin to throw ends the request with its Status.
 *
 * With `metrics`, each phase is timed as a whole (kube's admission step) and each plugin that handles the
 * operation is timed in that phase (kube's admission controller), `rejected` when it threw. The recorders
 * are resolved when the chain is made, per plugin, phase and operation; without `metrics` the phases run
 * untimed.
 */
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js';
import type { AdmissionPlugin } from './plugin.js';

export interface AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];
  admit(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** kube's admission step types: the mutating phase is `admit`, the validating one `validate`. */
export type AdmissionStepType = 'admit' | 'validate';

/** One (step or plugin, phase, operation) series pair, resolved once. */
export interface AdmissionRecorder {
  record(seconds: number, rejected: boolean): void;
}

/** Where the chain's timings go (bound to prom-client by apiserver/metrics/admission-metrics.ts). */
export interface AdmissionChainMetrics {
  step(type: AdmissionStepType, operation: AdmissionOperation): AdmissionRecorder;
  controller(name: string, type: AdmissionStepType, operation: AdmissionOperation): AdmissionRecorder;
}

const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

type ByOperation = Readonly<Record<AdmissionOperation, AdmissionRecorder>>;

function byOperation(make: (operation: AdmissionOperation) => AdmissionRecorder): ByOperation {
  return Object.freeze(Object.fromEntries(OPERATIONS.map((o) => [o, make(o)])) as Record<AdmissionOperation, AdmissionRecorder>);
}

export function admissionChain(plugins: readonly AdmissionPlugin[], metrics?: AdmissionChainMetrics): AdmissionChain {
  const mutating = plugins.filter((p) => p.admit !== undefined);
  const validating = plugins.filter((p) => p.validate !== undefined);
  const handles = (p: AdmissionPlugin, a: AdmissionAttributes): boolean => p.operations === undefined || p.operations.includes(a.operation);
  if (metrics === undefined) {
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
  const timed = (type: AdmissionStepType, list: readonly AdmissionPlugin[], run: (p: AdmissionPlugin, a: AdmissionAttributes) => Promise<void> | void) => {
    const step = byOperation((o) => metrics.step(type, o));
    const controllers = list.map((p) => byOperation((o) => metrics.controller(p.name, type, o)));
    return async (a: AdmissionAttributes): Promise<void> => {
      const start = performance.now();
      let rejected = true;
      try {
        for (let i = 0; i < list.length; i++) {
          const p = list[i]!;
          if (!handles(p, a)) continue;
          const began = performance.now();
          try {
            await run(p, a);
          } catch (err) {
            controllers[i]![a.operation].record((performance.now() - began) / 1000, true);
            throw err;
          }
          controllers[i]![a.operation].record((performance.now() - began) / 1000, false);
        }
        rejected = false;
      } finally {
        step[a.operation].record((performance.now() - start) / 1000, rejected);
      }
    };
  };
  return {
    plugins,
    admit: timed('admit', mutating, (p, a) => p.admit!(a)),
    validate: timed('validate', validating, (p, a) => p.validate!(a)),
  };
}
