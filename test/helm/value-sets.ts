/**
 * The value sets the chart tests render (issue 17, item 4), and small readers of rendered workloads.
 *
 * Each set is the chart's values.yaml plus one file of `test/helm/values/` (none for `defaults`), rendered
 * once per test file with the Prometheus Operator and cert-manager APIs available, as `helm template
 * --api-versions` would. A render is cached by set name: tests that need a variation render it themselves.
 */
import { join } from 'node:path';
import { chartDir, mergedValues, renderChart, repoRoot, type Rendered, type RenderOptions } from './render.js';

export type Json = Record<string, any>;

export interface ValueSet {
  readonly name: string;
  /** The values file under test/helm/values/, if any. */
  readonly file?: string;
}

export const valuesDir = join(repoRoot, 'test', 'helm', 'values');

export const VALUE_SETS: readonly ValueSet[] = [
  { name: 'defaults' },
  { name: 'external etcd', file: 'external-etcd.yaml' },
  { name: 'bundled etcd', file: 'bundled-etcd.yaml' },
  { name: 'cert-manager', file: 'cert-manager.yaml' },
  { name: 'monitoring off', file: 'monitoring-off.yaml' },
];

/** The release every set renders as (a name other than Helm's default, so nothing hard-codes that). */
export const RELEASE = 'papi';
export const NAMESPACE = 'platform';
/** APIs the target cluster serves beyond the built-in ones. */
export const API_VERSIONS = ['monitoring.coreos.com/v1', 'cert-manager.io/v1'];

/**
 * The chart under test: the project's, or the copy CHART_TESTS_CHART names (to check that these tests fail
 * on a broken chart without touching the real one).
 */
export const chartUnderTest = process.env.CHART_TESTS_CHART ?? chartDir;

/** The render options of a set, with extra values objects merged last. */
export function optionsFor(set: ValueSet, ...values: unknown[]): RenderOptions {
  return {
    chart: chartUnderTest,
    releaseName: RELEASE,
    namespace: NAMESPACE,
    apiVersions: API_VERSIONS,
    valuesFiles: set.file === undefined ? [] : [join(valuesDir, set.file)],
    values,
  };
}

const renders = new Map<string, Rendered>();

/** The set's render (cached). */
export function renderSet(set: ValueSet): Rendered {
  let r = renders.get(set.name);
  if (r === undefined) {
    r = renderChart(optionsFor(set));
    renders.set(set.name, r);
  }
  return r;
}

/** The merged `.Values` of a set. */
export function valuesOf(set: ValueSet): Json {
  return mergedValues(optionsFor(set));
}

/** The objects of a render. */
export function objectsOf(r: Rendered): Json[] {
  return r.manifests.map((m) => m.object);
}

/** Kinds whose pod template the tests inspect. */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'];

export function workloadsOf(r: Rendered): Json[] {
  return objectsOf(r).filter((o) => WORKLOAD_KINDS.includes(o.kind));
}

/** `kind/name` of an object, for messages. */
export function ref(o: Json): string {
  return `${o.kind}/${o.metadata?.name}`;
}

/** Whether a label selector (matchLabels and matchExpressions, or a Service's plain map) selects `labels`. */
export function selects(selector: Json, labels: Record<string, string>): boolean {
  const matchLabels: Record<string, string> = selector.matchLabels ?? (selector.matchExpressions === undefined ? selector : {});
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  for (const e of (selector.matchExpressions ?? []) as Json[]) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    switch (e.operator) {
      case 'In': if (!has || !(e.values as string[]).includes(value!)) return false; break;
      case 'NotIn': if (has && (e.values as string[]).includes(value!)) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: throw new Error(`unknown selector operator ${e.operator}`);
    }
  }
  return true;
}

/** Go's time.ParseDuration for the units the server's flags use (h, m, s, ms), in seconds. */
export function durationSeconds(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`not a duration: ${text}`);
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]!]!, 0);
}

/** The value of `--name=value` (or `--name value`) in an argument list; undefined when absent. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    if (a === `--${name}`) return args[i + 1];
  }
  return undefined;
}
