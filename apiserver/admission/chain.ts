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
    // One clock read per plugin: a plugin's time runs from the previous reading (the phase's start or the
    // end of the plugin before) to its own end, and the phase ends with its last plugin.
    return async (a: AdmissionAttributes): Promise<void> => {
      const start = performance.now();
      let mark = start;
      let rejected = true;
      try {
        for (let i = 0; i < list.length; i++) {
          const p = list[i]!;
          if (!handles(p, a)) continue;
          try {
            await run(p, a);
          } catch (err) {
            const end = performance.now();
            controllers[i]![a.operation].record((end - mark) / 1000, true);
            mark = end;
            throw err;
          }
          const end = performance.now();
          controllers[i]![a.operation].record((end - mark) / 1000, false);
          mark = end;
        }
        rejected = false;
      } finally {
        step[a.operation].record((mark - start) / 1000, rejected);
      }
    };
  };
  return {
    plugins,
    admit: timed('admit', mutating, (p, a) => p.admit!(a)),
    validate: timed('validate', validating, (p, a) => p.validate!(a)),
  };
}
