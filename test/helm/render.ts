/**
 * Renders a Helm chart the way `helm template` does, for tests and for `make cluster` (no helm binary on
 * these machines): builds the Go renderer in `test/helm/render/` once (Debian's Go in GOPATH mode, Sprig
 * and yaml.v3 from Debian's golang-*-dev sources), runs it, and parses its multi-document YAML.
 *
 * The binary is cached under `node_modules/.cache/helm-render/<hash of the Go sources>/`, so an edit of
 * the renderer rebuilds it and concurrent jest workers share one build (written to a temporary name, then
 * renamed into place). What the renderer does not implement is listed in `render/main.go`.
 *
 * As `helm template` does, the merged values are first checked against the chart's values.schema.json (ajv,
 * draft-07 with formats): a violation is a RenderError listing every one.
 *
 * Manifests are parsed as YAML 1.1 (as Kubernetes' sigs.k8s.io/yaml reads them: an unquoted `on` is a
 * boolean), duplicate keys rejected, timestamps kept as strings.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport, { type FormatsPlugin } from 'ajv-formats';
import { parseDocument, type ParseOptions, type DocumentOptions, type SchemaOptions } from 'yaml';

// ajv-formats is CommonJS (`module.exports = plugin`): under jest and tsx alike the default import is the plugin.
const addFormats = addFormatsImport as unknown as FormatsPlugin;

/**
 * The repository root: the nearest directory at or above the working directory holding the renderer's
 * sources (neither `__dirname` nor `import.meta` works both under jest's CommonJS and tsx's ESM).
 */
export const repoRoot = findRepoRoot(process.cwd());
/** The project's chart. */
export const chartDir = join(repoRoot, 'helm', 'platform-apiserver');
const sourceDir = join(repoRoot, 'test', 'helm', 'render');
/** Where Debian's golang-*-dev packages install their sources (the GOPATH the renderer builds in). */
export const debianGopath = '/usr/share/gocode';

export interface RenderOptions {
  /** Chart directory; default the project's chart. */
  readonly chart?: string;
  /** Values files merged over the chart's values.yaml, in order. */
  readonly valuesFiles?: readonly string[];
  /** Values objects merged after the files, in order (written to temporary files). */
  readonly values?: readonly unknown[];
  /** `.Release.Name`; default `release-name` as `helm template`. */
  readonly releaseName?: string;
  /** `.Release.Namespace`; default `default`. */
  readonly namespace?: string;
  /** Extra `.Capabilities.APIVersions` entries (e.g. `monitoring.coreos.com/v1`). */
  readonly apiVersions?: readonly string[];
}

export interface RenderedManifest {
  /** The template it came from: `<chart>/templates/<file>`. */
  readonly source: string;
  /** The parsed object. */
  readonly object: Record<string, unknown> & { apiVersion: string; kind: string; metadata: Record<string, unknown> };
}

export interface Rendered {
  /** The renderer's output as is. */
  readonly yaml: string;
  /** Every document, in Helm's install order. */
  readonly manifests: readonly RenderedManifest[];
}

/** A render that failed: the renderer's message (a `required`/`fail` message, a template or YAML error). */
export class RenderError extends Error {}

function findRepoRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'test', 'helm', 'render', 'main.go'))) return dir;
    if (dirname(dir) === dir) throw new Error(`test/helm/render.ts: no repository root at or above ${from}`);
  }
}

let builtBinary: string | undefined;

/** Builds the renderer if its cached binary is missing; returns the binary's path. */
export function rendererBinary(): string {
  if (builtBinary !== undefined) return builtBinary;
  const hash = createHash('sha256');
  for (const f of readdirSync(sourceDir).filter((n) => n.endsWith('.go')).sort()) {
    hash.update(f).update('\0').update(readFileSync(join(sourceDir, f))).update('\0');
  }
  const dir = join(repoRoot, 'node_modules', '.cache', 'helm-render', hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'render');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.${process.pid}.tmp`;
    const r = spawnSync('go', ['build', '-o', tmp, '.'], {
      cwd: sourceDir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH: debianGopath,
        GOCACHE: join(repoRoot, 'node_modules', '.cache', 'helm-render', 'gocache'),
        GOFLAGS: '',
        CGO_ENABLED: '0',
      },
    });
    if (r.error !== undefined || r.status !== 0) {
      throw new Error(`building the Helm renderer failed (needs Debian's golang-go, golang-github-masterminds-sprig-dev `
        + `and golang-gopkg-yaml.v3-dev: make deps): ${r.error?.message ?? r.stderr}`);
    }
    renameSync(tmp, bin);
  }
  builtBinary = bin;
  return bin;
}

function runRenderer(opts: RenderOptions, extra: readonly string[]): string {
  const args = ['--chart', opts.chart ?? chartDir];
  for (const f of opts.valuesFiles ?? []) args.push('--values', f);
  let tmp: string | undefined;
  try {
    if (opts.values !== undefined && opts.values.length > 0) {
      tmp = mkdtempSync(join(tmpdir(), 'helm-values-'));
      opts.values.forEach((v, i) => {
        // JSON is YAML: the renderer reads it as a values file.
        const file = join(tmp as string, `values-${i}.json`);
        writeFileSync(file, JSON.stringify(v));
        args.push('--values', file);
      });
    }
    if (opts.releaseName !== undefined) args.push('--release-name', opts.releaseName);
    if (opts.namespace !== undefined) args.push('--namespace', opts.namespace);
    for (const a of opts.apiVersions ?? []) args.push('--api-versions', a);
    args.push(...extra);
    const r = spawnSync(rendererBinary(), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.error !== undefined) throw r.error;
    if (r.status !== 0) throw new RenderError(r.stderr.replace(/^Error: /, '').trim());
    return r.stdout;
  } finally {
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  }
}

const yamlOptions: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: true,
  prettyErrors: true,
  // sigs.k8s.io/yaml turns timestamps into JSON strings.
  customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
};

/** Parses the renderer's output: documents each preceded by `---` and `# Source: <template>`. */
export function parseRendered(text: string): RenderedManifest[] {
  const out: RenderedManifest[] = [];
  const heads = [...text.matchAll(/^---\n# Source: (.+)\n/gm)];
  heads.forEach((h, i) => {
    const source = h[1] ?? '';
    const start = (h.index ?? 0) + h[0].length;
    const end = heads[i + 1]?.index ?? text.length;
    const body = text.slice(start, end);
    const doc = parseDocument(body, yamlOptions);
    if (doc.errors.length > 0) throw new RenderError(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const object = doc.toJS() as RenderedManifest['object'];
    if (object === null || typeof object !== 'object' || Array.isArray(object)) {
      throw new RenderError(`${source}: a document that is not a mapping`);
    }
    out.push({ source, object });
  });
  return out;
}

const valuesValidators = new Map<string, ValidateFunction>();

/**
 * Checks the merged values against the chart's values.schema.json (when it has one), as Helm does before
 * rendering; throws RenderError naming every violation.
 */
export function checkValuesSchema(opts: RenderOptions = {}): void {
  const chart = opts.chart ?? chartDir;
  const schemaFile = join(chart, 'values.schema.json');
  if (!existsSync(schemaFile)) return;
  let validate = valuesValidators.get(schemaFile);
  if (validate === undefined) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
    valuesValidators.set(schemaFile, validate);
  }
  if (!validate(mergedValues(opts))) {
    const problems = (validate.errors ?? []).map((e) => `- ${e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replace(/\//g, '.')}: ${e.message ?? ''}`
      + (e.params !== undefined && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''));
    throw new RenderError(`values don't meet the specifications of the schema in ${schemaFile}:\n${problems.join('\n')}`);
  }
}

/**
 * Renders the chart's manifests. Throws RenderError when the values break values.schema.json, or the chart
 * refuses them (`required`, `fail`) or fails.
 */
export function renderChart(opts: RenderOptions = {}): Rendered {
  checkValuesSchema(opts);
  const yaml = runRenderer(opts, []);
  return { yaml, manifests: parseRendered(yaml) };
}

/** Renders the chart's NOTES.txt. */
export function renderNotes(opts: RenderOptions = {}): string {
  return runRenderer(opts, ['--notes']);
}

/** The merged values the templates see as `.Values` (chart defaults, then the files, then the objects). */
export function mergedValues(opts: RenderOptions = {}): Record<string, unknown> {
  return JSON.parse(runRenderer(opts, ['--print-values'])) as Record<string, unknown>;
}

/** Finds one rendered object by kind and name; throws when it is missing. */
export function findManifest(r: Rendered, kind: string, name?: string): RenderedManifest['object'] {
  const m = r.manifests.find((x) => x.object.kind === kind && (name === undefined || x.object.metadata.name === name));
  if (m === undefined) throw new Error(`no ${kind}${name === undefined ? '' : ` ${name}`} rendered`);
  return m.object;
}

// Exposed for callers that write next to the binary (e.g. a cluster launcher caching rendered output).
export const renderCacheDir = (): string => dirname(rendererBinary());

type PodSpecLike = {
  containers: Array<{ name: string; args?: string[]; volumeMounts?: Array<{ name: string; mountPath: string }> }>;
  volumes?: Array<{ name: string; secret?: { secretName: string; items?: Array<{ key: string; path: string }> } }>;
};

function podSpec(workload: RenderedManifest['object']): PodSpecLike {
  const spec = (workload.spec as { template?: { spec?: PodSpecLike } } | undefined)?.template?.spec;
  if (spec === undefined) throw new Error(`${workload.kind} ${String(workload.metadata.name)}: no pod template`);
  return spec;
}

/** The args of a workload's container (default the first one). */
export function containerArgs(workload: RenderedManifest['object'], container?: string): string[] {
  const spec = podSpec(workload);
  const c = container === undefined ? spec.containers[0] : spec.containers.find((x) => x.name === container);
  if (c === undefined) throw new Error(`no container ${container ?? ''}`);
  return [...(c.args ?? [])];
}

/** A file the pod reads from a Secret: where it is mounted, and which Secret key it is. */
export interface SecretFile {
  readonly path: string;
  readonly secretName: string;
  readonly key: string;
}

/**
 * Every file a workload's container sees from a Secret volume with explicit items (the chart always lists
 * them), so a launcher outside Kubernetes can put the same content at the same flag paths.
 */
export function secretFiles(workload: RenderedManifest['object'], container?: string): SecretFile[] {
  const spec = podSpec(workload);
  const c = container === undefined ? spec.containers[0] : spec.containers.find((x) => x.name === container);
  const out: SecretFile[] = [];
  for (const m of c?.volumeMounts ?? []) {
    const v = spec.volumes?.find((x) => x.name === m.name);
    if (v?.secret === undefined) continue;
    for (const item of v.secret.items ?? []) {
      out.push({ path: `${m.mountPath}/${item.path}`, secretName: v.secret.secretName, key: item.key });
    }
  }
  return out;
}
