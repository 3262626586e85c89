/**
 * Resolved feature gates: the table's defaults with the user's settings applied, following kube's rules
 * (component-base featuregate):
 * - a name not in the table: `unrecognized feature gate: X` (the first one, nothing else is reported);
 * - a locked gate set to the other value: `cannot set feature gate X to false, feature is locked to true`
 *   (all of them, as kube aggregates them: one message, or `[a, b]` for several);
 * - `AllAlpha=v` / `AllBeta=v` set every alpha / beta gate that is not set explicitly, whatever the order;
 * - setting a GA or deprecated gate (to its allowed value) works and yields a warning, as kube logs one.
 *
 * `enabled(name)` is a property read on a frozen object: cheap enough for every request.
 */
import { featureGateTable, type FeatureGateSpec, type FeatureName } from './gates.js';

/** A setting the table refuses. `message` is kube's text; the caller decides how to report it. */
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

export interface FeatureGates {
  /** Whether the gate is on. */
  enabled(name: FeatureName): boolean;
  /** The settings as given (after `AllAlpha`/`AllBeta` expansion they may differ from `enabled`). */
  readonly explicit: ReadonlyMap<string, boolean>;
  /** What kube logs as warnings when the gates are set: GA and deprecated gates being set. */
  readonly warnings: readonly string[];
}

const byName: ReadonlyMap<string, FeatureGateSpec> = new Map(featureGateTable.map((g) => [g.name, g]));

/**
 * Applies `settings` (gate name -> value, in the order given) to the table. Throws `FeatureGateError` for
 * an unknown gate or a locked gate set away from its default.
 */
export function resolveFeatureGates(settings: ReadonlyMap<string, boolean>): FeatureGates {
  const values: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const g of featureGateTable) values[g.name] = g.default;
  const locked: string[] = [];
  const warnings: string[] = [];
  for (const [name, value] of settings) {
    const spec = byName.get(name);
    if (spec === undefined) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (spec.lockToDefault && spec.default !== value) {
      locked.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      continue;
    }
    values[name] = value;
    if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
  }
  if (locked.length === 1) throw new FeatureGateError(locked[0]);
  if (locked.length > 1) throw new FeatureGateError(`[${locked.join(', ')}]`);
  for (const [special, stage] of [['AllAlpha', 'ALPHA'], ['AllBeta', 'BETA']] as const) {
    const v = settings.get(special);
    if (v === undefined) continue;
    for (const g of featureGateTable) {
      if (g.stage === stage && g.name !== 'AllAlpha' && g.name !== 'AllBeta' && !settings.has(g.name)) values[g.name] = v;
    }
  }
  Object.freeze(values);
  return Object.freeze({
    enabled: (name: FeatureName): boolean => values[name] === true,
    explicit: new Map(settings),
    warnings: Object.freeze(warnings),
  });
}

/** Typed shorthand for tests and embedders: `featureGates({ WatchList: true })`. */
export function featureGates(settings: Partial<Record<FeatureName, boolean>>): FeatureGates {
  return resolveFeatureGates(new Map(Object.entries(settings) as [string, boolean][]));
}

/** Every gate at its default. */
export const defaultFeatureGates: FeatureGates = resolveFeatureGates(new Map());

/**
 * The `--help` lines of the gates, as kube-apiserver lists them under `--feature-gates`: alpha and beta
 * gates only (GA and deprecated ones are hidden), `kube:Name=true|false (STAGE - default=x)`, sorted.
 */
export function featureGateHelpLines(): string[] {
  return featureGateTable
    .filter((g) => g.stage === 'ALPHA' || g.stage === 'BETA')
    .map((g) => `kube:${g.name}=true|false (${g.stage} - default=${g.default})`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
