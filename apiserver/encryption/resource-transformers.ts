/**
 * From an EncryptionConfiguration to the value transformer of each stored value, as kube's
 * encryptionconfig builds its transformer overrides:
 *
 * - per group-resource, the providers of every entry that names it, in file order (an entry's providers
 *   keep their order); the first provider writes, all read (`prefixTransformers`, error "no matching prefix
 *   found");
 * - each keyed provider is its keys under `<word>:enc:<provider>:v1:` (`k8s:enc:aescbc:v1:` under k8s.io,
 *   the documents' domain word otherwise: `platform:enc:aescbc:v1:`), each key under `<name>:`; the first
 *   key writes;
 * - a resource's transformer is its exact entry, else its group's `*.<group>` (`*.` for core), else `*.*`,
 *   else identity (which still refuses to read encrypted values: a resource dropped from the file fails
 *   loudly instead of handing ciphertext to the decoder).
 *
 * `EncryptionTransformers` holds the configuration in force and answers the transforming store
 * (`storage/transforming-store.ts`) per key: the key's resource comes from the key layout
 * (`<prefix>/<resource>/...` for built-in kinds, `<prefix>/<group>/<resource>/...` for custom resources,
 * whose groups always contain a dot); keys that are not a served resource's (the compactor's key, the
 * allocation ranges) pass through. `swap` replaces the configuration at once for every later call
 * (automatic reload).
 */
import type { ValueTransformer } from '../../storage/transforming-store.js';
import type { EncryptionConfiguration, ProviderConfig } from './encryption-config.js';
import { groupResourceString, parseGroupResource } from './encryption-config.js';
import { aesCbcTransformer, aesGcmTransformer, identityTransformer, prefixTransformers, secretboxTransformer, type PrefixTransformer, type TransformRecorder } from './providers.js';

const NO_MATCH: Readonly<Record<string, string>> = {
  aescbc: 'no matching key was found for the provided AES transformer',
  aesgcm: 'no matching key was found for the provided AES transformer',
  secretbox: 'no matching key was found for the provided Secretbox transformer',
};

const latin1 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

function providerTransformer(p: ProviderConfig, encryptedPrefix: string, recorder: TransformRecorder | undefined): PrefixTransformer {
  if (p.type === 'identity') return { prefix: new Uint8Array(0), transformer: identityTransformer(encryptedPrefix) };
  const make = p.type === 'aescbc' ? aesCbcTransformer : p.type === 'aesgcm' ? aesGcmTransformer : secretboxTransformer;
  const keys = p.keys.map((k): PrefixTransformer => ({ prefix: latin1(`${k.name}:`), transformer: make(k.secret) }));
  return { prefix: latin1(`${encryptedPrefix}${p.type}:v1:`), transformer: prefixTransformers(NO_MATCH[p.type]!, keys, recorder) };
}

/** The transformers of one configuration, by group-resource string (`secrets`, `*.apps`, `*.`, `*.*`). */
export interface CompiledConfig {
  /** The transformer of one stored resource (`secrets`, `deployments.apps`, `widgets.example.com`). */
  forResource(type: string): ValueTransformer;
  /** True when an entry (exact, its group's wildcard or `*.*`) covers the resource. */
  covers(type: string): boolean;
  /** The group-resource strings as configured. */
  readonly configured: readonly string[];
}

/**
 * Builds the transformers of `config`; `encryptedPrefix` is `k8s:enc:` or the domain's (`platform:enc:`);
 * `recorder` counts and times each transformation (kube's storage transformation metrics).
 */
export function compileConfig(config: EncryptionConfiguration, encryptedPrefix: string, recorder?: TransformRecorder): CompiledConfig {
  const lists = new Map<string, PrefixTransformer[]>();
  for (const entry of config.resources) {
    const providers = entry.providers.map((p) => providerTransformer(p, encryptedPrefix, recorder));
    for (const res of entry.resources) {
      const gr = groupResourceString(parseGroupResource(res));
      lists.set(gr, [...(lists.get(gr) ?? []), ...providers]);
    }
  }
  const byResource = new Map<string, ValueTransformer>();
  for (const [gr, list] of lists) byResource.set(gr, prefixTransformers('no matching prefix found', list, recorder));
  const fallback = identityTransformer(encryptedPrefix);
  const lookup = (type: string): ValueTransformer | undefined => {
    const exact = byResource.get(type);
    if (exact !== undefined) return exact;
    const { group } = parseGroupResource(type);
    return byResource.get(groupResourceString({ group, resource: '*' })) ?? byResource.get('*.*');
  };
  return {
    forResource: (type) => lookup(type) ?? fallback,
    covers: (type) => lookup(type) !== undefined,
    configured: [...lists.keys()],
  };
}

export interface KeyLayoutInfo {
  /** `--etcd-prefix` (`/registry`). */
  readonly prefix: string;
  /** Built-in stored resource (the key segment after the prefix) -> its group-resource string. */
  readonly builtin: ReadonlyMap<string, string>;
}

/**
 * The group-resource string of the object stored under `key`, or undefined for a key that is not an
 * object of a resource.
 */
export function resourceOfKey(key: string, layout: KeyLayoutInfo): string | undefined {
  const base = `${layout.prefix.replace(/\/+$/, '')}/`;
  if (!key.startsWith(base)) return undefined;
  const rest = key.slice(base.length);
  const a = rest.indexOf('/');
  if (a <= 0) return undefined;
  const first = rest.slice(0, a);
  if (!first.includes('.')) return layout.builtin.get(first);
  const b = rest.indexOf('/', a + 1);
  if (b <= a + 1) return undefined;
  return `${rest.slice(a + 1, b)}.${first}`;
}

/** The configuration in force, swapped by a reload; the per-key answer of the transforming store. */
export class EncryptionTransformers {
  private compiled: CompiledConfig;
  private config: EncryptionConfiguration;
  private recorder: TransformRecorder | undefined;
  /** key segment(s) -> resource, so a key costs one split and one map lookup. */
  private readonly resources = new Map<string, string | undefined>();
  /** One stable transformer per resource that reads the configuration in force at each call. */
  private readonly dynamic = new Map<string, ValueTransformer>();

  constructor(
    config: EncryptionConfiguration,
    private readonly encryptedPrefix: string,
    private readonly layout: KeyLayoutInfo,
  ) {
    this.config = config;
    this.compiled = compileConfig(config, encryptedPrefix);
  }

  /** Replaces the configuration: every later read and write uses the new one. */
  swap(config: EncryptionConfiguration): void {
    this.compiled = compileConfig(config, this.encryptedPrefix, this.recorder);
    this.config = config;
  }

  /** Counts and times every later transformation (set once the metrics registry exists). */
  instrument(recorder: TransformRecorder): void {
    this.recorder = recorder;
    this.compiled = compileConfig(this.config, this.encryptedPrefix, recorder);
  }

  get current(): CompiledConfig {
    return this.compiled;
  }

  /** The `TransformerForKey` of the transforming store. */
  readonly forKey = (key: string): ValueTransformer | undefined => {
    const type = this.resourceOf(key);
    if (type === undefined) return undefined;
    let t = this.dynamic.get(type);
    if (t === undefined) {
      t = {
        fromStorage: (stored, k) => this.compiled.forResource(type).fromStorage(stored, k),
        toStorage: (plain, k) => this.compiled.forResource(type).toStorage(plain, k),
      };
      this.dynamic.set(type, t);
    }
    return t;
  };

  /** The resource of `key` (memoized per collection, never per object). */
  resourceOf(key: string): string | undefined {
    const base = `${this.layout.prefix.replace(/\/+$/, '')}/`;
    if (!key.startsWith(base)) return undefined;
    // The collection part of the key: one segment for built-ins, two for custom resources.
    const a = key.indexOf('/', base.length);
    if (a < 0) return undefined;
    const first = key.slice(base.length, a);
    const end = first.includes('.') ? key.indexOf('/', a + 1) : a;
    if (end < 0) return undefined;
    const collection = key.slice(0, end + 1);
    if (this.resources.has(collection)) return this.resources.get(collection);
    const type = resourceOfKey(key, this.layout);
    if (this.resources.size < 10_000) this.resources.set(collection, type);
    return type;
  }
}
