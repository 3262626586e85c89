/**
 * `--controllers`: which in-server controllers the leader runs, in kube-controller-manager's syntax. Items
 * are `*` (every controller that is on by default), `name` (on) and `-name` (off); a named item wins over
 * `*`; without `*`, only the named controllers run. Names are kube 1.32's canonical names or their older
 * aliases (`job-controller` or `job`; document 1's `--controllers=*,tokencleaner`).
 *
 * Not selectable, as in kube where kube-apiserver runs them: service allocation repair and the `kubernetes`
 * Service's endpoints.
 */
import { FlagError } from './flag-error.js';

export interface ControllerName {
  readonly name: string;
  readonly alias: string;
  /** Whether `*` includes it. tokencleaner is off unless named (kube), or unless bootstrap tokens are enabled (here). */
  readonly byDefault: boolean;
}

export const CONTROLLERS: readonly ControllerName[] = [
  { name: 'namespace-controller', alias: 'namespace', byDefault: true },
  { name: 'serviceaccount-controller', alias: 'serviceaccount', byDefault: true },
  { name: 'clusterrole-aggregation-controller', alias: 'clusterrole-aggregation', byDefault: true },
  { name: 'validatingadmissionpolicy-status-controller', alias: 'validatingadmissionpolicy-status', byDefault: true },
  { name: 'certificatesigningrequest-approving-controller', alias: 'csrapproving', byDefault: true },
  { name: 'certificatesigningrequest-signing-controller', alias: 'csrsigning', byDefault: true },
  { name: 'token-cleaner-controller', alias: 'tokencleaner', byDefault: false },
  { name: 'garbage-collector-controller', alias: 'garbagecollector', byDefault: true },
  { name: 'job-controller', alias: 'job', byDefault: true },
  { name: 'ttl-after-finished-controller', alias: 'ttl-after-finished', byDefault: true },
  { name: 'statefulset-controller', alias: 'statefulset', byDefault: true },
  { name: 'replicationcontroller-controller', alias: 'replicationcontroller', byDefault: true },
  { name: 'endpointslice-controller', alias: 'endpointslice', byDefault: true },
  { name: 'horizontal-pod-autoscaler-controller', alias: 'horizontalpodautoscaling', byDefault: true },
];

const byName = new Map<string, ControllerName>(CONTROLLERS.flatMap((c) => [[c.name, c], [c.alias, c]] as const));

/** The parsed flag: canonical names turned on and off explicitly, and whether `*` was given. */
export interface ControllerSelection {
  readonly all: boolean;
  readonly on: ReadonlySet<string>;
  readonly off: ReadonlySet<string>;
}

/** Parses the flag's items; an unknown name is kube's error. */
export function parseControllers(items: readonly string[]): ControllerSelection {
  const on = new Set<string>();
  const off = new Set<string>();
  let all = false;
  for (const item of items) {
    if (item === '*') {
      all = true;
      continue;
    }
    const negated = item.startsWith('-');
    const c = byName.get(negated ? item.slice(1) : item);
    if (c === undefined) throw new FlagError(`invalid value "${items.join(',')}" for flag --controllers: "${item}" is not in the list of known controllers`);
    (negated ? off : on).add(c.name);
  }
  return { all, on, off };
}

/**
 * Whether the controller `name` (canonical) runs. `defaults` overrides a controller's `byDefault` (the
 * server turns tokencleaner on by default with `--enable-bootstrap-token-auth`).
 */
export function controllerEnabled(s: ControllerSelection, name: string, defaults: Readonly<Record<string, boolean>> = {}): boolean {
  if (s.off.has(name)) return false;
  if (s.on.has(name)) return true;
  return s.all && (defaults[name] ?? byName.get(name)?.byDefault ?? false);
}
