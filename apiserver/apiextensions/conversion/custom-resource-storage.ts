/**
 * The storage boundary of one served version of a custom resource (a `VersionedStorage` for the generic
 * registry), after Kubernetes v1.32's storage codec for custom resources (apiextensions-apiserver
 * `crdConversionRESTOptionsGetter`: the versioning codec with a schema-coercing decoder, the unstructured
 * defaulter and a schema-coercing converter):
 *
 * - read: each stored object is pruned by the schema of ITS OWN version (unless the definition preserves
 *   unknown fields; non-nullable nulls dropped too) and defaulted by that schema, then converted to the
 *   served version, and what a conversion changed is pruned by the served version's schema (a webhook's
 *   answer may carry anything). Defaults are thus those of the version an object is stored in, applied on
 *   every read and never written back by the read;
 * - write: an object of the served version is converted to the storage version and pruned by its schema;
 *   nothing is defaulted there (the request was defaulted in its own version when decoded).
 *
 * Objects already in the target version are never sent to the strategy, so a read or write in the storage
 * version, or any conversion with the `None` strategy, is synchronous. Failures are
 * `conversionStatus(...)` StatusErrors: 500 with the converter's message, for that request only.
 */
import type { KubeObject } from '../../api/object.js';
import { applyDefaults } from '../../schema/defaults.js';
import { dropNulls } from '../../schema/drop-nulls.js';
import { prune } from '../../schema/prune.js';
import type { Schema } from '../../schema/schema.js';
import { jsonClone } from '../../registry/patch/json-value.js';
import type { MaybePromise, VersionedStorage } from '../../registry/versioned-storage.js';
import { ConversionError, conversionStatus } from './conversion-error.js';
import { convertObject, convertObjects, convertObjectsNone, noneConverter, type ConvertOptions, type CrConverter } from './custom-resource-converter.js';
import { groupVersionString, objectGroupVersion, type JsonObject } from './group-version.js';

export interface CustomResourceStorageConfig {
  readonly group: string;
  readonly kind: string;
  /** The engine schema (resource root) of EVERY version of the definition, served or not, by name. */
  readonly schemas: ReadonlyMap<string, Schema>;
  /** The version objects are written in (`spec.versions[].storage`). */
  readonly storageVersion: string;
  /** `spec.preserveUnknownFields` (always false for v1 definitions): nothing is pruned. */
  readonly preserveUnknownFields: boolean;
  /** The definition's strategy (`converterFor`). */
  readonly converter: CrConverter;
}

const asStatus = (err: unknown): unknown => (err instanceof ConversionError ? conversionStatus(err) : err);

/** The storage boundary of `config`'s definition for its served version `version`. */
export function customResourceStorage(config: CustomResourceStorageConfig, version: string): VersionedStorage {
  const { group, kind, schemas, converter } = config;
  const target = { group, version };
  const targetApiVersion = groupVersionString(target);
  const storage = { group, version: config.storageVersion };
  const storageApiVersion = groupVersionString(storage);
  const opts: ConvertOptions = { group, versions: [...schemas.keys()] };
  const none = converter === noneConverter;

  /** Pruning (and null dropping) by the schema of `v`, as the schema-coercing decoder and converter do. */
  const coerce = (obj: JsonObject, v: string): void => {
    const schema = schemas.get(v);
    if (schema === undefined || config.preserveUnknownFields) return;
    prune(obj, schema);
    dropNulls(obj, schema);
  };
  /** A stored object pruned and defaulted in its own version (objects of other kinds are left alone). */
  const decoded = (obj: KubeObject): void => {
    const gv = objectGroupVersion(obj);
    if (gv.group !== group || obj.kind !== kind) return;
    const schema = schemas.get(gv.version);
    if (schema === undefined) return;
    coerce(obj, gv.version);
    applyDefaults(obj, schema);
  };
  /** The converted objects, those a conversion changed pruned by the target schema. */
  const coerced = (before: readonly KubeObject[], after: readonly JsonObject[], v: string): KubeObject[] =>
    after.map((o, i) => {
      if (o !== before[i]) coerce(o, v);
      return o as KubeObject;
    });

  const readNow = (stored: KubeObject): KubeObject | undefined => {
    decoded(stored);
    if (stored.apiVersion === targetApiVersion) return stored;
    if (!none) return undefined;
    try {
      return coerced([stored], convertObjectsNone([stored], target, opts), version)[0];
    } catch (err) {
      throw asStatus(err);
    }
  };

  const read = (stored: KubeObject[]): MaybePromise<KubeObject[]> => {
    for (const o of stored) decoded(o);
    if (stored.every((o) => o.apiVersion === targetApiVersion)) return stored;
    if (none) {
      try {
        return coerced(stored, convertObjectsNone(stored, target, opts), version);
      } catch (err) {
        throw asStatus(err);
      }
    }
    return convertObjects(stored, target, converter, opts).then(
      (out) => coerced(stored, out, version),
      (err: unknown) => {
        throw asStatus(err);
      },
    );
  };

  const write = (obj: KubeObject): MaybePromise<KubeObject> => {
    if (version === config.storageVersion) return obj;
    if (none) {
      try {
        convertObjectsNone([obj], storage, opts);
      } catch (err) {
        throw asStatus(err);
      }
      const out = { ...jsonClone(obj), apiVersion: storageApiVersion };
      coerce(out, config.storageVersion);
      return out;
    }
    return convertObject(obj, storage, converter, opts).then(
      (out) => {
        // The restored metadata is the request's own (shallow): copied before pruning touches it.
        const own = { ...out, metadata: jsonClone(out['metadata']) } as KubeObject;
        coerce(own, config.storageVersion);
        return own;
      },
      (err: unknown) => {
        throw asStatus(err);
      },
    );
  };

  return Object.freeze({ read, readNow, write });
}
