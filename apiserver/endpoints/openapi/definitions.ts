/**
 * The schema definitions of a document: every kind of the given group versions with
 * `x-kubernetes-group-version-kind`, its List, and the shared meta types (ObjectMeta, ListMeta, Status,
 * StatusDetails, StatusCause, DeleteOptions, Preconditions, Patch, WatchEvent).
 */
import type { Naming } from '../../naming/naming.js';
import { scaleKind } from '../../registry/kinds/autoscaling/scale.js';
import { groupOf, type KindStrategy } from '../../registry/kind-strategy.js';
import { listMetaSchema, objectMetaSchema } from '../../schema/object-meta-schema.js';
import type { Schema } from '../../schema/schema.js';
import type { ServedVersion } from '../discovery/served-groups.js';
import { kindDefinitionName, metaDefinitionName } from './definition-names.js';
import {
  deleteOptionsSchema, patchSchema, preconditionsSchema, statusCauseSchema, statusDetailsSchema, statusSchema, watchEventSchema,
} from '../../schema/meta-schemas.js';
import { schemaPublisher, type Dialect, type Published } from './publish-schema.js';

const status = statusSchema(listMetaSchema);

/** The shared schemas by their meta/v1 type name. */
const metaTypes: readonly (readonly [string, Schema])[] = [
  ['ObjectMeta', objectMetaSchema],
  ['ListMeta', listMetaSchema],
  ['Status', status],
  ['StatusDetails', statusDetailsSchema],
  ['StatusCause', statusCauseSchema],
  ['DeleteOptions', deleteOptionsSchema],
  ['Preconditions', preconditionsSchema],
  ['Patch', patchSchema],
  ['WatchEvent', watchEventSchema],
];

export interface GroupVersionEntry {
  readonly group: string;
  readonly served: ServedVersion;
}

/** Names of the definitions operations refer to. */
export interface DefinitionNames {
  kind(group: string, k: KindStrategy): string;
  list(group: string, k: KindStrategy): string;
  meta(type: 'Status' | 'DeleteOptions' | 'Patch' | 'WatchEvent'): string;
}

export function definitionNames(naming: Naming): DefinitionNames {
  return {
    kind: (group, k) => kindDefinitionName(naming, group, k.version, k.kind),
    list: (group, k) => kindDefinitionName(naming, group, k.version, `${k.kind}List`),
    meta: (type) => metaDefinitionName(naming, type),
  };
}

const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });

export function buildDefinitions(naming: Naming, dialect: Dialect, entries: readonly GroupVersionEntry[]): Record<string, Published> {
  const names = definitionNames(naming);
  const refs = new Map<Schema, string>(metaTypes.map(([type, s]) => [s, metaDefinitionName(naming, type)]));
  const publisher = schemaPublisher(naming, dialect, refs);
  const refPrefix = dialect === 'v2' ? '#/definitions/' : '#/components/schemas/';
  const out: Record<string, Published> = {};

  for (const { group, served } of entries) {
    for (const k of served.resources) {
      const kindName = names.kind(group, k);
      out[kindName] = { ...publisher.definition(k.schema), 'x-kubernetes-group-version-kind': [gvk(group, k.version, k.kind)] };
      const ref = { $ref: refPrefix + kindName };
      out[names.list(group, k)] = {
        description: `${k.kind}List is a list of ${k.kind} objects.`,
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
          items: { type: 'array', description: `The ${k.kind} objects.`, items: dialect === 'v2' ? ref : { allOf: [ref], default: {} } },
          kind: { type: 'string', description: 'The REST resource this object represents.' },
          metadata: publisher.publish(listMetaSchema),
        },
        'x-kubernetes-group-version-kind': [gvk(group, k.version, `${k.kind}List`)],
      };
      // The kinds of connect sub-resources (TokenRequest) and of `scale` are published beside their parent.
      for (const c of [...(k.connectSubresources ?? []), ...(k.scale === undefined ? [] : [{ kind: scaleKind }])]) {
        const g = groupOf(c.kind, naming);
        out[names.kind(g, c.kind)] = { ...publisher.definition(c.kind.schema), 'x-kubernetes-group-version-kind': [gvk(g, c.kind.version, c.kind.kind)] };
      }
    }
  }

  // Status belongs to the core group; DeleteOptions and WatchEvent are registered in every group version.
  const perGroupVersion = (kind: string) => {
    const list = [gvk('', 'v1', kind)];
    for (const { group, served } of entries) if (group !== '' || served.version !== 'v1') list.push(gvk(group, served.version, kind));
    return list;
  };
  for (const [type, schema] of metaTypes) {
    const def = publisher.definition(schema);
    const name = metaDefinitionName(naming, type);
    if (type === 'Status') out[name] = { ...def, 'x-kubernetes-group-version-kind': [gvk('', 'v1', 'Status')] };
    else if (type === 'DeleteOptions' || type === 'WatchEvent') out[name] = { ...def, 'x-kubernetes-group-version-kind': perGroupVersion(type) };
    else out[name] = def;
  }
  return out;
}
