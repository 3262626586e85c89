/**
 * The PromQL of the dashboard (`helm/dashboards/platform-apiserver.json`) and of the rules
 * (`helm/rules/platform-apiserver.rules.yaml`), read from the files as shipped, with the dashboard's
 * template variables replaced the way Grafana does before it sends a query.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const DASHBOARD_PATH = join('helm', 'dashboards', 'platform-apiserver.json');
export const RULES_PATH = join('helm', 'rules', 'platform-apiserver.rules.yaml');
export const PROMETHEUS_RULE_PATH = join('helm', 'prometheus-rules.yaml');

export interface PanelTarget {
  readonly refId: string;
  /** The expression as written in the dashboard (with `$job`, `$instance`, `$__rate_interval`). */
  readonly expr: string;
  readonly legendFormat: string;
}

export interface Panel {
  readonly id: number;
  readonly title: string;
  readonly description: string;
  /** The row the panel sits under. */
  readonly row: string;
  /** Grafana's unit id (`reqps`, `s`, `bytes`, `percentunit`, `short`, `ops`, `eps`, `cps`). */
  readonly unit: string;
  /** Threshold values drawn as lines (the SLO panel's). */
  readonly thresholds: readonly number[];
  readonly targets: readonly PanelTarget[];
}

export interface VariableValues {
  readonly job: string;
  /** A regular expression over `instance` (the dashboard's "All" is `.+`). */
  readonly instance: string;
  /** The range of `rate()` windows: Grafana's `$__rate_interval`. */
  readonly rateInterval: string;
}

/** The dashboard's timeseries panels in layout order, with the row each belongs to. */
export function dashboardPanels(repoRoot: string): Panel[] {
  const dashboard = JSON.parse(readFileSync(join(repoRoot, DASHBOARD_PATH), 'utf8')) as { panels: any[] };
  const out: Panel[] = [];
  let row = '';
  for (const p of dashboard.panels) {
    if (p.type === 'row') {
      row = p.title;
      continue;
    }
    const steps = (p.fieldConfig?.defaults?.thresholds?.steps ?? []) as { value: number | null }[];
    out.push({
      id: p.id,
      title: p.title,
      description: p.description ?? '',
      row,
      unit: p.fieldConfig?.defaults?.unit ?? 'short',
      thresholds: p.fieldConfig?.defaults?.custom?.thresholdsStyle?.mode === 'line'
        ? steps.map((s) => s.value).filter((v): v is number => typeof v === 'number')
        : [],
      targets: (p.targets as any[]).map((t) => ({ refId: t.refId, expr: t.expr, legendFormat: t.legendFormat ?? '' })),
    });
  }
  return out;
}

/** Replaces the dashboard's variables in `expr` (longest names first, as `$__rate_interval` contains none of the others). */
export function substitute(expr: string, values: VariableValues): string {
  return expr
    .replaceAll('$__rate_interval', values.rateInterval)
    .replaceAll('$instance', values.instance)
    .replaceAll('$job', values.job);
}

/** Grafana's legend format: `{{label}}` replaced by the series' label value ('' when absent). */
export function legendOf(format: string, metric: Readonly<Record<string, string>>): string {
  const text = format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => metric[name] ?? '').replace(/\s+/g, ' ').trim();
  return text === '' ? JSON.stringify(metric) : text;
}

export interface Rule {
  readonly group: string;
  /** The recording rule's series name or the alert's name. */
  readonly name: string;
  readonly kind: 'record' | 'alert';
  readonly expr: string;
}

/** Every rule of the rules file, in order. */
export function rulesOf(repoRoot: string): Rule[] {
  return rulesFromGroups(rulesFileGroups(repoRoot));
}

/** The `groups` of the rules file. */
export function rulesFileGroups(repoRoot: string): any[] {
  return parse(readFileSync(join(repoRoot, RULES_PATH), 'utf8')).groups;
}

/** The `spec.groups` of the PrometheusRule. */
export function prometheusRuleGroups(repoRoot: string): { kind: string; apiVersion: string; groups: any[] } {
  const doc = parse(readFileSync(join(repoRoot, PROMETHEUS_RULE_PATH), 'utf8'));
  return { kind: doc.kind, apiVersion: doc.apiVersion, groups: doc.spec.groups };
}

function rulesFromGroups(groups: any[]): Rule[] {
  return groups.flatMap((g) => (g.rules as any[]).map((r) => ({
    group: g.name,
    name: r.record ?? r.alert,
    kind: r.record === undefined ? 'alert' as const : 'record' as const,
    expr: String(r.expr).trim(),
  })));
}

/**
 * The inputs of an alert expression: `A > 1 and B > 2 or C == 0` gives `[A, B, C]`, the expressions that
 * have data whenever the alert could be evaluated, though the alert itself has none unless it fires. Splits
 * at `and` / `or` / `unless` outside parentheses, strips enclosing parentheses, then drops a trailing
 * comparison with a number. Returns the parts unchanged when there is no such comparison.
 */
export function alertInputs(expr: string): string[] {
  return splitTopLevel(expr, /^(and|or|unless)\b/).map((part) => {
    const bare = stripParens(part.trim());
    const m = /^([\s\S]*?)\s*(>=|<=|==|!=|>|<)\s*(?:bool\s+)?(\(?[-0-9.e* ]+\)?)$/.exec(bare);
    if (m === null || depthAt(bare, m[1]!.length) !== 0) return bare;
    return m[1]!.trim();
  });
}

function splitTopLevel(expr: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
    else if (depth === 0 && /\s/.test(expr[i - 1] ?? ' ')) {
      const m = separator.exec(expr.slice(i));
      if (m !== null && /\s/.test(expr[i + m[0].length] ?? ' ')) {
        parts.push(expr.slice(start, i));
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push(expr.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function depthAt(expr: string, index: number): number {
  let depth = 0;
  for (let i = 0; i < index; i++) {
    const c = expr[i]!;
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
  }
  return depth;
}

function stripParens(expr: string): string {
  let e = expr;
  while (e.startsWith('(') && e.endsWith(')') && closingOf(e, 0) === e.length - 1) e = e.slice(1, -1).trim();
  return e;
}

function closingOf(expr: string, open: number): number {
  let depth = 0;
  for (let i = open; i < expr.length; i++) {
    if (expr[i] === '(') depth++;
    else if (expr[i] === ')' && --depth === 0) return i;
  }
  return -1;
}
