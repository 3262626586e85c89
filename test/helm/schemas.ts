/**
 * Strict validators for rendered manifests (ajv, JSON Schema draft-07):
 * - built-in kinds against the Kubernetes 1.32 JSON Schemas of `../shared/testdata/k8s-json-schema/`
 *   (yannh/openapi2jsonschema, "standalone-strict": `additionalProperties: false` everywhere, so an unknown
 *   or misspelt field is an error; see that folder's SOURCES.md);
 * - custom resources (prometheus-operator's ServiceMonitor and PrometheusRule, cert-manager's Certificate,
 *   Issuer, ClusterIssuer) against the `openAPIV3Schema` of their CRDs in `../shared/testdata/crds/`,
 *   converted to JSON Schema and made strict the way `kubectl apply --validate=strict` treats them: a field
 *   the structural schema does not declare is an error, unless the node preserves unknown fields. The root
 *   `metadata` of a custom resource (`type: object` in every CRD) is validated as the built-in ObjectMeta.
 *
 * `pattern` is matched with RE2, as Kubernetes does (Go's regexp). Not checked here: CEL rules (`x-kubernetes-validations`) and list-map key uniqueness.
 * A kind with no schema is an error (`validatorFor` throws), so a new kind in the chart needs a schema.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport, { type FormatsPlugin } from 'ajv-formats';
import { RE2JS } from 're2js';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './render.js';

type Json = Record<string, any>;

// ajv-formats is CommonJS with `module.exports = plugin`: nodenext types the default import as the module
// object, but under jest (CommonJS interop) and tsx (Node's ESM) alike it is the plugin itself.
const addFormats = addFormatsImport as unknown as FormatsPlugin;

/**
 * `../shared/testdata` beside the repository, else the workplace's `/work/shared/testdata` (where the other
 * suites read it from: a clone elsewhere, as CI makes, has no `../shared`).
 */
const besideRepo = resolve(repoRoot, '..', 'shared', 'testdata');
export const sharedTestdata = existsSync(besideRepo) ? besideRepo : '/work/shared/testdata';
const k8sSchemaDir = join(sharedTestdata, 'k8s-json-schema', 'v1.32.10-standalone-strict');
const crdFiles = [
  join(sharedTestdata, 'crds', 'prometheus-operator', 'crds', 'monitoring.coreos.com_servicemonitors.yaml'),
  join(sharedTestdata, 'crds', 'prometheus-operator', 'crds', 'monitoring.coreos.com_prometheusrules.yaml'),
  join(sharedTestdata, 'crds', 'prometheus-operator', 'crds', 'monitoring.coreos.com_podmonitors.yaml'),
  join(sharedTestdata, 'crds', 'cert-manager', 'crds', 'cert-manager.io_certificates.yaml'),
  join(sharedTestdata, 'crds', 'cert-manager', 'crds', 'cert-manager.io_issuers.yaml'),
  join(sharedTestdata, 'crds', 'cert-manager', 'crds', 'cert-manager.io_clusterissuers.yaml'),
];

// The vendor keywords of both sources: annotations for ajv, not assertions.
const VENDOR_KEYWORDS = [
  'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-unions', 'x-kubernetes-group-version-kind',
  'x-kubernetes-validations', 'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
];

/**
 * `pattern` as Kubernetes evaluates it: Go's regexp (RE2, e.g. a leading `(?i)`), unanchored, through re2js
 * (the server's own CEL engine uses it too). ajv's `code` names it in standalone code, which is never made here.
 */
const re2Engine: NonNullable<CodeOptions['regExp']> = Object.assign((pattern: string) => RE2JS.compile(pattern), { code: 're2js.RE2JS.compile' });

function newAjv(): Ajv {
  // strict: a schema keyword ajv does not know is a compile error (so nothing is silently ignored);
  // allErrors: every violation of an object at once.
  const ajv = new Ajv({
    strict: true, strictTypes: false, strictTuples: false, allErrors: true, validateFormats: true, code: { regExp: re2Engine },
  });
  addFormats(ajv);
  ajv.addVocabulary(VENDOR_KEYWORDS);
  return ajv;
}

const ajv = newAjv();
const cache = new Map<string, ValidateFunction>();

/** The schema file of a built-in kind: `<kind>-<first label of group>-<version>.json`, core kinds `<kind>-<version>.json`. */
export function k8sSchemaFile(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
  const name = group === '' ? `${kind.toLowerCase()}-${version}.json` : `${kind.toLowerCase()}-${group.split('.')[0]}-${version}.json`;
  return join(k8sSchemaDir, name);
}

function readK8sSchema(file: string): Json {
  const schema = JSON.parse(readFileSync(file, 'utf8')) as Json;
  // "http://json-schema.org/schema#" names no draft ajv knows; the schemas are draft-04/07 compatible.
  delete schema.$schema;
  return schema;
}

/** ObjectMeta as the built-in schemas declare it (taken from ConfigMap's). */
function objectMetaSchema(): Json {
  return readK8sSchema(join(k8sSchemaDir, 'configmap-v1.json')).properties.metadata as Json;
}

/**
 * An OpenAPI v3 structural schema node as a strict draft-07 JSON Schema node: `nullable` adds `null` to the
 * type; int-or-string accepts both; OpenAPI's boolean `exclusiveMinimum`/`exclusiveMaximum` become draft-07's
 * numbers; an object node that declares `properties` without `additionalProperties` and does not preserve
 * unknown fields refuses any other field (an object node declaring neither keeps its fields, as Kubernetes
 * does for `type: object` with `x-kubernetes-preserve-unknown-fields` or `additionalProperties`).
 */
export function strictFromOpenApi(node: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, strictFromOpenApi(v as Json)]));
        break;
      case 'items':
      case 'not':
        out[key] = strictFromOpenApi(value as Json);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : strictFromOpenApi(value as Json);
        break;
      case 'anyOf':
      case 'allOf':
      case 'oneOf':
        out[key] = (value as Json[]).map(strictFromOpenApi);
        break;
      case 'nullable':
      case 'description':
      case 'example':
      case 'externalDocs':
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        break;
      default:
        out[key] = value;
    }
  }
  if (node.exclusiveMinimum === true && typeof node.minimum === 'number') {
    out.exclusiveMinimum = node.minimum;
    delete out.minimum;
  }
  if (node.exclusiveMaximum === true && typeof node.maximum === 'number') {
    out.exclusiveMaximum = node.maximum;
    delete out.maximum;
  }
  if (node['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    if (out.anyOf === undefined) out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (out.properties !== undefined && node.additionalProperties === undefined
    && node['x-kubernetes-preserve-unknown-fields'] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

interface CrdVersionSchema { readonly apiVersion: string; readonly kind: string; readonly schema: Json }

function crdSchemas(): CrdVersionSchema[] {
  const out: CrdVersionSchema[] = [];
  for (const file of crdFiles) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd = doc.toJS() as Json | null;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const v of crd.spec.versions as Json[]) {
        const schema = strictFromOpenApi(v.schema.openAPIV3Schema as Json);
        const apiVersion = `${crd.spec.group}/${v.name}`;
        const kind = crd.spec.names.kind as string;
        schema.properties = {
          ...schema.properties,
          apiVersion: { type: 'string', enum: [apiVersion] },
          kind: { type: 'string', enum: [kind] },
          metadata: objectMetaSchema(),
        };
        schema.required = [...new Set([...(schema.required ?? []), 'apiVersion', 'kind', 'metadata'])];
        out.push({ apiVersion, kind, schema });
      }
    }
  }
  return out;
}

let crds: Map<string, Json> | undefined;

/** The kinds custom resources may have here: `group/version Kind`. */
export function customResourceKinds(): string[] {
  crds ??= new Map(crdSchemas().map((c) => [`${c.apiVersion} ${c.kind}`, c.schema]));
  return [...crds.keys()];
}

/** The compiled validator of an object's apiVersion and kind; throws when no schema is known for it. */
export function validatorFor(apiVersion: string, kind: string): ValidateFunction {
  const key = `${apiVersion} ${kind}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let schema: Json | undefined;
  crds ??= new Map(crdSchemas().map((c) => [`${c.apiVersion} ${c.kind}`, c.schema]));
  if (crds.has(key)) {
    schema = crds.get(key);
  } else {
    const file = k8sSchemaFile(apiVersion, kind);
    if (existsSync(file)) schema = readK8sSchema(file);
  }
  if (schema === undefined) {
    const known = readdirSync(k8sSchemaDir).filter((f) => f.endsWith('.json')).join(', ');
    throw new Error(`no schema for ${key}: built-in kinds known here: ${known}; custom resources: ${customResourceKinds().join(', ')}`);
  }
  const validate = ajv.compile(schema);
  cache.set(key, validate);
  return validate;
}

/** One line per violation: the JSON pointer of the offending value and what is wrong with it. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
      : e.keyword === 'enum' ? ` (${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)})` : '';
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
}

/** The violations of an object against its kind's schema (empty when valid). */
export function validateObject(object: Json): string[] {
  const validate = validatorFor(String(object.apiVersion), String(object.kind));
  return validate(object) ? [] : describeErrors(validate.errors);
}
