/**
 * Reading a structural OpenAPI v3 schema node (a custom resource definition's `openAPIV3Schema` or a
 * built-in kind's `Schema`) whatever the spelling of its extensions. Schemas kept by the server use
 * Kubernetes' names (`x-kubernetes-*`, apiserver/schema/schema.ts); a definition as written in
 * `platform.io` mode uses `x-platform-*` (`Naming.extension`). The caller says which.
 */
import type { Naming } from '../../naming/naming.js';
import type { Schema } from '../../schema/schema.js';

/** A schema node: the server's `Schema` or any JSON object of the same shape with other extension names. */
export type SchemaNode = Schema | Readonly<Record<string, unknown>>;

/** `x-kubernetes-` (Kubernetes' names; the server's own schemas) or `x-platform-` (platform.io documents). */
export type ExtensionPrefix = string;

export const KUBERNETES_EXTENSIONS: ExtensionPrefix = 'x-kubernetes-';

/** The prefix a naming publishes: `x-platform-` / `x-kubernetes-`. */
export const extensionPrefixOf = (naming: Naming): ExtensionPrefix => naming.extension('');

/** Typed access to the members the CEL types read. */
export class SchemaView {
  constructor(readonly prefix: ExtensionPrefix = KUBERNETES_EXTENSIONS) {}

  private raw(node: SchemaNode, key: string): unknown {
    return Object.prototype.hasOwnProperty.call(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }

  ext(node: SchemaNode, name: string): unknown {
    return this.raw(node, this.prefix + name);
  }

  type(node: SchemaNode): string | undefined {
    const t = this.raw(node, 'type');
    return typeof t === 'string' ? t : undefined;
  }

  format(node: SchemaNode): string | undefined {
    const f = this.raw(node, 'format');
    return typeof f === 'string' ? f : undefined;
  }

  properties(node: SchemaNode): Readonly<Record<string, SchemaNode>> | undefined {
    const p = this.raw(node, 'properties');
    return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, SchemaNode>) : undefined;
  }

  /** The schema of a map's values; undefined when absent or a boolean (`true` exposes nothing, as Kubernetes). */
  additionalProperties(node: SchemaNode): SchemaNode | undefined {
    const a = this.raw(node, 'additionalProperties');
    return a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as SchemaNode) : undefined;
  }

  items(node: SchemaNode): SchemaNode | undefined {
    const i = this.raw(node, 'items');
    return i !== null && typeof i === 'object' && !Array.isArray(i) ? (i as SchemaNode) : undefined;
  }

  required(node: SchemaNode): readonly string[] {
    const r = this.raw(node, 'required');
    return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
  }

  enumValues(node: SchemaNode): readonly unknown[] | undefined {
    const e = this.raw(node, 'enum');
    return Array.isArray(e) ? e : undefined;
  }

  hasDefault(node: SchemaNode): boolean {
    const d = this.raw(node, 'default');
    return d !== undefined && d !== null;
  }

  defaultValue(node: SchemaNode): unknown {
    return this.raw(node, 'default');
  }

  nullable(node: SchemaNode): boolean {
    return this.raw(node, 'nullable') === true;
  }

  /** A numeric bound (`maxLength`, `maxItems`, `maxProperties`); bigint input is accepted. */
  bound(node: SchemaNode, key: 'maxLength' | 'maxItems' | 'maxProperties'): number | undefined {
    const v = this.raw(node, key);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'bigint') return Number(v);
    return undefined;
  }

  intOrString(node: SchemaNode): boolean {
    return this.ext(node, 'int-or-string') === true;
  }

  embeddedResource(node: SchemaNode): boolean {
    return this.ext(node, 'embedded-resource') === true;
  }

  preserveUnknownFields(node: SchemaNode): boolean {
    return this.ext(node, 'preserve-unknown-fields') === true;
  }

  listType(node: SchemaNode): string | undefined {
    const t = this.ext(node, 'list-type');
    return typeof t === 'string' ? t : undefined;
  }

  listMapKeys(node: SchemaNode): readonly string[] {
    const k = this.ext(node, 'list-map-keys');
    return Array.isArray(k) ? k.filter((x): x is string => typeof x === 'string') : [];
  }
}
