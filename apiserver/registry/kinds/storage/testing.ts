/**
 * Test helpers for the storage kinds: the create, update and status-update paths of the generic registry
 * without a store (schema defaults, the kind's hooks, schema validation, the kind's validation), answering
 * the Status causes an Invalid response would carry (`reason`, `field`, `message`).
 */
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { validateValue } from '../../../schema/validate.js';
import { toCauses, type FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { jsonClone } from '../../patch/json-value.js';
import { testContext } from '../shared/test-context.js';

export interface Cause {
  readonly reason: string;
  readonly field: string;
  readonly message: string;
}

const causes = (errs: FieldError[]): Cause[] => toCauses(errs).map((c) => ({ reason: c.reason, field: c.field, message: c.message }));

/** A create as the registry runs it: the causes and the object as it would be stored. */
export function createAs(kind: KindStrategy, obj: KubeObject): { causes: Cause[]; obj: KubeObject } {
  const o = jsonClone(obj);
  const ctx = testContext('platform.io', '', '', 'create');
  applyDefaults(o, kind.schema);
  kind.prepareForCreate?.(o, ctx);
  return { causes: causes([...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validate?.(o, ctx) ?? [])]), obj: o };
}

/** An update of `old` (as stored) to `obj` through the main endpoint. */
export function updateAs(kind: KindStrategy, obj: KubeObject, old: KubeObject): { causes: Cause[]; obj: KubeObject } {
  const o = jsonClone(obj);
  const ctx = testContext('platform.io', '', '', 'update');
  applyDefaults(o, kind.schema);
  kind.prepareForUpdate?.(o, old, ctx);
  const errs = [...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validate?.(o, ctx) ?? []), ...(kind.validateUpdate?.(o, old, ctx) ?? [])];
  return { causes: causes(errs), obj: o };
}

/** A write of the `status` sub-resource: everything but status is the stored object's, as the registry keeps it. */
export function updateStatusAs(kind: KindStrategy, obj: KubeObject, old: KubeObject): { causes: Cause[]; obj: KubeObject } {
  const o: KubeObject = { ...jsonClone(old), status: jsonClone(obj.status) };
  const ctx = testContext('platform.io', '', 'status', 'update');
  applyDefaults(o, kind.schema);
  const errs = [...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validateStatusUpdate?.(o, old, ctx) ?? [])];
  return { causes: causes(errs), obj: o };
}
