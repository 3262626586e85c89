/**
 * `--encryption-provider-config`: kube-apiserver 1.32's `EncryptionConfiguration` file (YAML or JSON),
 * decoded strictly (unknown or duplicate fields are errors) and validated with kube's messages.
 *
 * `apiVersion`: `apiserver.config.<group-domain>/v1`, and `apiserver.config.k8s.io/v1` under any domain (so
 * a file written for kube works as it is; the audit policy and the tracing config accept both the same way).
 *
 * ```yaml
 * apiVersion: apiserver.config.k8s.io/v1
 * kind: EncryptionConfiguration
 * resources:
 *   - resources: [secrets, configmaps]   # `*.` every core resource, `*.apps` a group, `*.*` everything
 *     providers:                          # the first writes; every one reads
 *       - aescbc: {keys: [{name: key1, secret: <base64 of 16, 24 or 32 bytes>}]}
 *       - aesgcm: {keys: [...]}            # 16, 24 or 32 bytes
 *       - secretbox: {keys: [...]}         # 32 bytes
 *       - identity: {}                     # plaintext
 * ```
 *
 * Validation (kube's `ValidateEncryptionConfiguration`, messages as kube's field errors): at least one
 * entry; per entry at least one resource and one provider; no resource twice in one list; no overlapping
 * entries in one list (`secrets` with `*.`, anything with `*.*`); resource names in lower case, not `*`,
 * not the non-REST allocations (`serviceipallocations`, ...), not the `events.k8s.io` group (Events are
 * stored as core `events`), not `extensions`, not `<resource>.*`; exactly one provider type per provider
 * entry; each key with a name and a base64 secret of an accepted length. Secrets never appear in a message
 * (`REDACTED`). Then, as kube builds its transformers: a resource after an earlier `*.<group>` or `*.*`
 * rule is "masked by earlier rule". `kms` providers are refused: this server has no KMS plugin client.
 *
 * Errors: `EncryptionConfigError`, with kube's wording (`error while parsing file: ...` wrapping the
 * validation aggregate).
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { isObject } from '../api/json.js';

export type KeyedProviderType = 'aescbc' | 'aesgcm' | 'secretbox';
export type ProviderType = KeyedProviderType | 'identity';

export interface EncryptionKey {
  readonly name: string;
  /** The decoded key bytes. */
  readonly secret: Uint8Array;
}

export type ProviderConfig =
  | { readonly type: 'identity' }
  | { readonly type: KeyedProviderType; readonly keys: readonly EncryptionKey[] };

export interface ResourceEntry {
  /** As written: `secrets`, `deployments.apps`, `*.`, `*.apps`, `*.*`. */
  readonly resources: readonly string[];
  readonly providers: readonly ProviderConfig[];
}

export interface EncryptionConfiguration {
  readonly resources: readonly ResourceEntry[];
}

export class EncryptionConfigError extends Error {
  override readonly name = 'EncryptionConfigError';
}

const KEY_SIZES: Readonly<Record<KeyedProviderType, readonly number[]>> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };
const PROVIDER_FIELDS = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const;

/** kube's schema.ParseGroupResource: the resource before the first dot, the group after it. */
export function parseGroupResource(s: string): { readonly group: string; readonly resource: string } {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

/** kube's grYAMLString: `*.` for every core resource, else `resource.group` (or `resource` for core). */
export function groupResourceString(gr: { readonly group: string; readonly resource: string }): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Go's `%#v` of a []string, as field.Invalid prints a list value. */
const goStrings = (list: readonly string[]): string => `[]string{${list.map((s) => JSON.stringify(s)).join(', ')}}`;

/** Strict decoding of `obj`'s members (Go's strict JSON decoding of the config struct). */
function unknownFields(obj: Record<string, unknown>, path: string, allowed: readonly string[]): string[] {
  return Object.keys(obj)
    .filter((k) => !allowed.includes(k))
    .map((k) => `strict decoding error: unknown field "${path === '' ? k : `${path}.${k}`}"`);
}

/**
 * Parses and validates the file's text. `groupDomain` adds `apiserver.config.<domain>/v1` to the accepted
 * versions, and `events.<domain>` to the refused events groups (kube refuses `*.events.k8s.io`: Events
 * are stored as core `events`).
 */
export function parseEncryptionConfig(text: string, groupDomain: string): EncryptionConfiguration {
  if (text.trim() === '') throw new EncryptionConfigError('encryption provider configuration file is empty');
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) throw new EncryptionConfigError(`error decoding encryption provider configuration: ${doc.errors[0]!.message}`);
  const raw: unknown = doc.toJS();
  // kube's decoder quotes the document here; this one never does: the file holds the keys.
  if (!isObject(raw)) throw new EncryptionConfigError("error decoding encryption provider configuration: Object 'Kind' is missing (the file is not a YAML or JSON object)");
  const versions = [...new Set(['apiserver.config.k8s.io/v1', `apiserver.config.${groupDomain}/v1`])];
  const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
  if (typeof raw.kind !== 'string' || raw.kind === '') {
    throw new EncryptionConfigError("error decoding encryption provider configuration: Object 'Kind' is missing");
  }
  if (raw.kind !== 'EncryptionConfiguration' || !versions.includes(apiVersion)) {
    throw new EncryptionConfigError(
      `error decoding encryption provider configuration: no kind "${raw.kind}" is registered for version "${apiVersion}" (expected kind EncryptionConfiguration, apiVersion ${versions.join(' or ')})`,
    );
  }

  // Decoding (types and unknown fields) first, as kube's strict decoder fails before validation runs.
  const decodeErrs: string[] = unknownFields(raw, '', ['apiVersion', 'kind', 'resources']);
  const entries: { resources: string[]; providers: Record<string, unknown>[] }[] = [];
  const list = (v: unknown, path: string): unknown[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      decodeErrs.push(`json: cannot unmarshal ${typeof v === 'object' ? 'object' : typeof v} into Go struct field ${path} of type []`);
      return [];
    }
    return v;
  };
  list(raw.resources, 'EncryptionConfiguration.resources').forEach((e, i) => {
    if (!isObject(e)) {
      decodeErrs.push(`json: cannot unmarshal ${typeof e} into Go struct field EncryptionConfiguration.resources of type v1.ResourceConfiguration`);
      return;
    }
    decodeErrs.push(...unknownFields(e, `resources[${i}]`, ['resources', 'providers']));
    const resources = list(e.resources, 'ResourceConfiguration.resources.resources').map((r) => {
      if (typeof r !== 'string') decodeErrs.push(`json: cannot unmarshal ${typeof r} into Go struct field ResourceConfiguration.resources.resources of type string`);
      return String(r);
    });
    const providers = list(e.providers, 'ResourceConfiguration.resources.providers').map((p, j) => {
      if (!isObject(p)) {
        decodeErrs.push(`json: cannot unmarshal ${typeof p} into Go struct field ResourceConfiguration.resources.providers of type v1.ProviderConfiguration`);
        return {};
      }
      decodeErrs.push(...unknownFields(p, `resources[${i}].providers[${j}]`, PROVIDER_FIELDS));
      for (const t of ['aescbc', 'aesgcm', 'secretbox'] as const) {
        const c = p[t];
        if (c === undefined || c === null) continue;
        if (!isObject(c)) {
          decodeErrs.push(`json: cannot unmarshal ${typeof c} into Go struct field ProviderConfiguration.resources.providers.${t} of type v1.AESConfiguration`);
          continue;
        }
        decodeErrs.push(...unknownFields(c, `resources[${i}].providers[${j}].${t}`, ['keys']));
        list(c.keys, `${t}.keys`).forEach((k, n) => {
          if (!isObject(k)) {
            decodeErrs.push(`json: cannot unmarshal ${typeof k} into Go struct field ${t}.keys of type v1.Key`);
            return;
          }
          decodeErrs.push(...unknownFields(k, `resources[${i}].providers[${j}].${t}.keys[${n}]`, ['name', 'secret']));
          for (const f of ['name', 'secret']) {
            if (k[f] !== undefined && k[f] !== null && typeof k[f] !== 'string') {
              decodeErrs.push(`json: cannot unmarshal ${typeof k[f]} into Go struct field Key.resources.providers.${t}.keys.${f} of type string`);
            }
          }
        });
      }
      if (p.identity !== undefined && p.identity !== null) {
        if (!isObject(p.identity)) decodeErrs.push(`json: cannot unmarshal ${typeof p.identity} into Go struct field ProviderConfiguration.resources.providers.identity of type v1.IdentityConfiguration`);
        else decodeErrs.push(...unknownFields(p.identity, `resources[${i}].providers[${j}].identity`, []));
      }
      return p;
    });
    entries.push({ resources, providers });
  });
  if (decodeErrs.length > 0) throw new EncryptionConfigError(`error decoding encryption provider configuration: ${decodeErrs[0]}`);

  const errs: string[] = [];
  const out: ResourceEntry[] = [];
  if (entries.length === 0) {
    errs.push('resources: Required value: at least one resources is required');
  }
  entries.forEach((e, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    if (e.resources.length === 0) errs.push(`${r}: Required value: at least one ${r} is required`);
    errs.push(...resourceOverlap(e.resources, r));
    errs.push(...resourceNames(e.resources, r, groupDomain));
    if (e.providers.length === 0) errs.push(`${p}: Required value: at least one ${p} is required`);
    const providers: ProviderConfig[] = [];
    e.providers.forEach((prov, j) => {
      const path = `${p}[${j}]`;
      const present = PROVIDER_FIELDS.filter((f) => prov[f] !== undefined && prov[f] !== null);
      if (present.length === 0) {
        errs.push(`${path}: Invalid value: "{}": provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity`);
        return;
      }
      if (present.length > 1) {
        errs.push(`${path}: Invalid value: ${JSON.stringify(present.join(', '))}: more than one provider specified in a single element, should split into different list elements`);
        return;
      }
      const type = present[0]!;
      if (type === 'kms') {
        errs.push(`${path}.kms: Unsupported value: "kms": KMS providers are not supported by this server (use aescbc, aesgcm, secretbox or identity)`);
        return;
      }
      if (type === 'identity') {
        providers.push({ type: 'identity' });
        return;
      }
      const keysPath = `${path}.${type}.keys`;
      const rawKeys = Array.isArray((prov[type] as Record<string, unknown>).keys) ? ((prov[type] as Record<string, unknown>).keys as Record<string, unknown>[]) : [];
      if (rawKeys.length === 0) {
        errs.push(`${keysPath}: Required value: at least one keys is required`);
        return;
      }
      const keys: EncryptionKey[] = [];
      rawKeys.forEach((k, n) => {
        const kp = `${keysPath}[${n}]`;
        const name = typeof k.name === 'string' ? k.name : '';
        const secret = typeof k.secret === 'string' ? k.secret : '';
        if (name === '') errs.push(`${kp}.name: Required value: name is a mandatory field for a key`);
        if (secret === '') {
          errs.push(`${kp}.secret: Required value: secret is a mandatory field for a key`);
          return;
        }
        const bytes = decodeStdBase64(secret);
        if (bytes === undefined) {
          errs.push(`${kp}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
          return;
        }
        const sizes = KEY_SIZES[type];
        if (!sizes.includes(bytes.length)) {
          errs.push(`${kp}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${bytes.length}, expected one of [${sizes.join(' ')}]`);
          return;
        }
        keys.push({ name, secret: bytes });
      });
      providers.push({ type, keys });
    });
    out.push({ resources: e.resources, providers });
  });
  if (errs.length > 0) {
    throw new EncryptionConfigError(`error while parsing file: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
  }
  // kube's transformer construction: a resource after an earlier `*.<group>` or `*.*` rule is masked.
  const seen = new Set<string>();
  for (const e of out) {
    for (const res of e.resources) {
      const gr = parseGroupResource(res);
      const anyInGroup = groupResourceString({ group: gr.group, resource: '*' });
      if (seen.has(anyInGroup)) throw new EncryptionConfigError(`resource ${JSON.stringify(groupResourceString(gr))} is masked by earlier rule ${JSON.stringify(anyInGroup)}`);
      if (seen.has('*.*')) throw new EncryptionConfigError(`resource ${JSON.stringify(groupResourceString(gr))} is masked by earlier rule "*.*"`);
    }
    for (const res of e.resources) seen.add(groupResourceString(parseGroupResource(res)));
  }
  return { resources: out };
}

/** Go's base64.StdEncoding (padding required, no whitespace); undefined when it does not decode. */
function decodeStdBase64(s: string): Uint8Array | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, 'base64'));
}

function resourceOverlap(resources: readonly string[], path: string): string[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  for (let i = 0; i < grs.length; i++) {
    for (let j = 0; j < grs.length; j++) {
      if (i === j) continue;
      const a = grs[i]!;
      const b = grs[j]!;
      if (a.group === b.group && a.resource === b.resource) {
        duplicate = true;
        continue;
      }
      if (a.group === '*' && a.resource === '*') overlap = true;
      else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
    }
  }
  const errs: string[] = [];
  if (duplicate) errs.push(`${path}: Invalid value: ${goStrings(resources)}: the same resource cannot be specified multiple times`);
  if (overlap) {
    errs.push(`${path}: Invalid value: ${goStrings(resources)}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`);
  }
  return errs;
}

const NON_REST = new Set(['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations']);

function resourceNames(resources: readonly string[], path: string, groupDomain: string): string[] {
  const errs: string[] = [];
  const eventsGroups = new Set(['events.k8s.io', `events.${groupDomain}`]);
  resources.forEach((res, j) => {
    const p = `${path}[${j}]`;
    const invalid = (msg: string): void => void errs.push(`${p}: Invalid value: ${JSON.stringify(res)}: ${msg}`);
    if (res.toLowerCase() !== res) return invalid('resource name should not contain capital letters');
    if (res === '*') return invalid("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
    if (NON_REST.has(res)) return invalid('resources which do not have REST API/s cannot be encrypted');
    const gr = parseGroupResource(res);
    if (eventsGroups.has(gr.group)) {
      return invalid(`'*.${gr.group}' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`);
    }
    if (gr.group === 'extensions') return invalid("'extensions' group has been removed and cannot be used for encryption");
    if (gr.group === '*' && gr.resource !== '*') return invalid('encrypting the same resource across groups is not supported');
    return undefined;
  });
  return errs;
}

/** Reads and parses the file; errors name it as kube's do. Returns the text too (a reload compares it). */
export function readEncryptionConfigFile(path: string, groupDomain: string): { readonly config: EncryptionConfiguration; readonly text: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(`error opening encryption provider configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  if (text.length === 0) throw new EncryptionConfigError(`encryption provider configuration file ${JSON.stringify(path)} is empty`);
  return { config: parseEncryptionConfig(text, groupDomain), text };
}
