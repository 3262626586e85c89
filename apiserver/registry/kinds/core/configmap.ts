/**
 * ConfigMap (core/v1): non-confidential key/value data, UTF-8 strings in `data` and bytes (base64) in
 * `binaryData`. Validation follows Kubernetes v1.32 (`ValidateConfigMap`, `ValidateConfigMapUpdate`):
 * config-key names, no key in both maps, 1 MiB of values in total (reported on the whole object, field
 * ""), and `immutable: true` freezing both maps for good.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import { FieldPath, forbidden, invalidValue, type FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { asMap, byteSize, checkDataMap, dataTooLong, MAX_DATA_SIZE, sameMap, stringSize } from '../shared/data-maps.js';
import { bool, byteMap, stringMap } from '../shared/schema-builders.js';
import { ageCell, ageColumn, column, countKeys, nameCell, nameColumn, table } from '../shared/table.js';

const schema = kindSchema('ConfigMap holds configuration data for pods to consume.', {
  binaryData: byteMap(
    "Binary data: each key must consist of alphanumeric characters, '-', '_' or '.'. Values may hold bytes that are not valid UTF-8. Keys may not also appear in data.",
  ),
  data: stringMap(
    "Configuration data: each key must consist of alphanumeric characters, '-', '_' or '.'. Values are UTF-8 strings; use binaryData for other bytes. Keys may not also appear in binaryData.",
  ),
  immutable: bool('If true, only metadata can be modified afterwards: data and binaryData are frozen. Unset means false. Cannot be unset once true.'),
}, undefined, { data: 2, binaryData: 3, immutable: ptr(4) });

const immutableMsg = 'field is immutable when `immutable` is set';
const dataPath = FieldPath.root('data');

export const configMaps = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: Object.freeze(['cm']),
  schema,
  table: table(
    [nameColumn, column('Data', 'string', 'The number of entries in data and binaryData.'), ageColumn],
    (obj, now) => [nameCell(obj), countKeys(obj.data) + countKeys(obj.binaryData), ageCell(obj, now)],
  ),

  validate(obj: KubeObject): FieldError[] {
    const errs: FieldError[] = [];
    const data = asMap(obj.data);
    const binary = asMap(obj.binaryData);
    let total = checkDataMap(data, 'data', stringSize, errs);
    if (data !== undefined && binary !== undefined) {
      for (const key in data) {
        if (Object.prototype.hasOwnProperty.call(binary, key)) errs.push(invalidValue(dataPath.key(key), key, 'duplicate of key present in binaryData'));
      }
    }
    total += checkDataMap(binary, 'binaryData', byteSize, errs);
    if (total > MAX_DATA_SIZE) errs.push(dataTooLong(''));
    return errs;
  },

  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
    if (old.immutable !== true) return [];
    const errs: FieldError[] = [];
    if (obj.immutable !== true) errs.push(forbidden('immutable', immutableMsg));
    if (!sameMap(obj.data, old.data)) errs.push(forbidden('data', immutableMsg));
    if (!sameMap(obj.binaryData, old.binaryData)) errs.push(forbidden('binaryData', immutableMsg));
    return errs;
  },
} satisfies KindStrategy);
