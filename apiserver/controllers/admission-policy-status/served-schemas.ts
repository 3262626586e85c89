/**
 * The type checker's view of what this server serves (Kubernetes uses a REST mapper and the OpenAPI
 * schema resolver): the kinds of a resource from the served resources, built-in or custom, looked up
 * by plural or singular name as a REST mapper does, and each kind's object schema. Read at every call, so
 * a custom resource served since the last check is seen.
 */
import type { ServedResources } from '../../registry/served-resources.js';
import type { Schema } from '../../schema/schema.js';
import type { GroupVersionKind, SchemaResolver } from './type-check.js';

export function servedSchemaResolver(resources: ServedResources): SchemaResolver {
  return {
    kindsFor(group: string, version: string, resource: string): readonly GroupVersionKind[] {
      const name = resource.toLowerCase();
      const byPlural = resources.lookup(group, version, name);
      if (byPlural !== undefined) return [{ group, version, kind: byPlural.strategy.kind }];
      const bySingular = resources.all.find((r) => r.group === group && r.strategy.version === version && r.strategy.singular === name);
      return bySingular === undefined ? [] : [{ group, version, kind: bySingular.strategy.kind }];
    },
    schemaFor(gvk: GroupVersionKind): Schema | undefined {
      // Virtual kinds (the reviews) have schemas but no objects to admit; they are served all the same.
      return resources.all.find((r) => r.group === gvk.group && r.strategy.version === gvk.version && r.strategy.kind === gvk.kind)?.strategy.schema;
    },
  };
}
