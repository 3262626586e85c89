/**
 * Test helpers for the CustomResourceDefinition kind: the create and update paths of the generic registry
 * without a store (schema defaults, the kind's hooks, schema validation, the kind's validation), and the
 * real definitions of /work/shared/testdata/crds (used as they are).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { jsonClone } from '../../patch/json-value.js';
import { validateValue } from '../../../schema/validate.js';
import { errorString } from '../../../validation/field-error.js';
import { testContext } from '../shared/test-context.js';
import { customResourceDefinitions as crds } from './crd.js';

export const TESTDATA_CRDS = '/work/shared/testdata/crds';

/** Every CustomResourceDefinition document under the testdata directory, with its file. */
export function testdataDefinitions(): { file: string; crd: KubeObject }[] {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : /\.ya?ml$/.test(f) && p.includes('/crds/') ? [p] : [];
    });
  return files(TESTDATA_CRDS).flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as KubeObject | null)
      .filter((d): d is KubeObject => d !== null && d.kind === 'CustomResourceDefinition')
      .map((crd) => ({ file: file.slice(TESTDATA_CRDS.length + 1), crd })),
  );
}

/** A create as the registry runs it; the error strings and the object as it would be stored. */
export function create(obj: KubeObject, domain = 'k8s.io'): { errors: string[]; obj: KubeObject } {
  const o = jsonClone(obj);
  const ctx = testContext(domain, '', '', 'create');
  applyDefaults(o, crds.schema);
  crds.prepareForCreate(o);
  const errors = [...validateValue(o, crds.schema), ...crds.validate(o, ctx)];
  return { errors: errors.map(errorString), obj: o };
}

/** An update of `old` (as stored) to `obj`. */
export function update(obj: KubeObject, old: KubeObject, domain = 'k8s.io'): { errors: string[]; obj: KubeObject } {
  const o = jsonClone(obj);
  o.status = jsonClone(old.status);
  const ctx = testContext(domain, '', '', 'update');
  applyDefaults(o, crds.schema);
  crds.prepareForUpdate(o);
  const errors = [...validateValue(o, crds.schema), ...crds.validate(o, ctx), ...crds.validateUpdate(o, old, ctx)];
  return { errors: errors.map(errorString), obj: o };
}
