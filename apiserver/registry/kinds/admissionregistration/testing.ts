/**
 * Test helpers for the admission policy kinds: the create and update paths of the generic registry
 * without a store (schema defaults, the kind's hooks, schema validation, the kind's validation), and the
 * real policies of /work/shared/testdata/policies (used as they are).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { validateValue } from '../../../schema/validate.js';
import { errorString } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { jsonClone } from '../../patch/json-value.js';
import { testContext } from '../shared/test-context.js';

export const TESTDATA_POLICIES = '/work/shared/testdata/policies';

/** A create as the registry runs it: the error strings and the object as it would be stored. */
export function createAs(kind: KindStrategy, obj: KubeObject): { errors: string[]; obj: KubeObject } {
  const o = jsonClone(obj);
  const ctx = testContext('k8s.io', '', '', 'create');
  applyDefaults(o, kind.schema);
  kind.prepareForCreate?.(o, ctx);
  const errors = [...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validate?.(o, ctx) ?? [])];
  return { errors: errors.map(errorString), obj: o };
}

/** An update of `old` (as stored) to `obj`; the stored status is kept, as the registry keeps it. */
export function updateAs(kind: KindStrategy, obj: KubeObject, old: KubeObject): { errors: string[]; obj: KubeObject } {
  const o = jsonClone(obj);
  if (kind.subresources?.includes('status') === true) o.status = jsonClone(old.status);
  const ctx = testContext('k8s.io', '', '', 'update');
  applyDefaults(o, kind.schema);
  kind.prepareForUpdate?.(o, old, ctx);
  const errors = [...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validate?.(o, ctx) ?? []), ...(kind.validateUpdate?.(o, old, ctx) ?? [])];
  return { errors: errors.map(errorString), obj: o };
}

/** A write of the `status` sub-resource: the kind's status validation of `obj`. */
export function updateStatusAs(kind: KindStrategy, obj: KubeObject, old: KubeObject): string[] {
  const o = jsonClone(obj);
  const ctx = testContext('k8s.io', '', 'status', 'update');
  applyDefaults(o, kind.schema);
  return [...validateValue(o, kind.schema, undefined, { style: 'builtin' }), ...(kind.validateStatusUpdate?.(o, old, ctx) ?? [])].map(errorString);
}

/** Every document of the testdata directory whose kind is one of `kinds`, with its file. */
export function testdataObjects(kinds: readonly string[]): { file: string; obj: KubeObject }[] {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : /\.ya?ml$/.test(f) ? [p] : [];
    });
  return files(TESTDATA_POLICIES)
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(file, 'utf8'))
        .map((d) => d.toJS() as KubeObject | null)
        .filter((d): d is KubeObject => d !== null && typeof d === 'object' && kinds.includes(d.kind ?? ''))
        .map((obj) => ({ file: file.slice(TESTDATA_POLICIES.length + 1), obj })),
    );
}
