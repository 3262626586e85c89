/**
 * The Table convention of a custom resource version, as Kubernetes' CRD table convertor builds it: a Name
 * column (format `name`), then one column per `additionalPrinterColumns` entry, or a single `Age` column
 * (type `date`, `.metadata.creationTimestamp`) when the version declares none.
 *
 * Cells: a path that reaches nothing gives a null cell; only the first value a path reaches is shown (as
 * upstream, which assumes simple paths). `string` columns print the value as kubectl's jsonpath printer does
 * (strings as they are, objects and arrays as compact JSON, other scalars in text); `integer`, `number` and
 * `boolean` columns keep values of their type (numbers are truncated for `integer`) and are null otherwise;
 * `date` columns show the human duration since an RFC 3339 timestamp, `<invalid>` for any other string.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableColumn, TableConvention } from '../../kind-strategy.js';
import { humanDuration } from '../shared/human-duration.js';
import { nameColumn, table } from '../shared/table.js';
import { isObject, stringAt, type Json } from './json-schema-node.js';
import { evaluateJsonPath, parseSimpleJsonPath, type JsonPathStep } from './simple-json-path.js';

const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.';

/** Kubernetes' default for a version without printer columns. */
const AGE_PRINTER_COLUMN: Json = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: AGE_DESCRIPTION };

/** The convention for a version's `additionalPrinterColumns` (undefined or empty: the Age column). */
export function customResourceTable(printerColumns: unknown): TableConvention {
  const declared = Array.isArray(printerColumns) ? printerColumns.filter(isObject) : [];
  const source = declared.length > 0 ? declared : [AGE_PRINTER_COLUMN];
  const columns: TableColumn[] = [nameColumn];
  const cells: { type: string; steps: readonly JsonPathStep[] | undefined }[] = [];
  for (const c of source) {
    const type = stringAt(c, 'type');
    const priority = typeof c.priority === 'number' ? c.priority : 0;
    columns.push(Object.freeze({ name: stringAt(c, 'name'), type, format: stringAt(c, 'format'), description: stringAt(c, 'description'), priority }));
    cells.push({ type, steps: parseSimpleJsonPath(stringAt(c, 'jsonPath')) });
  }
  return table(columns, (obj: KubeObject, now: Date) => [
    obj.metadata.name ?? '',
    ...cells.map(({ type, steps }) => {
      if (steps === undefined) return null;
      const found = evaluateJsonPath(steps, obj);
      return found.length === 0 ? null : cell(type, found[0], now);
    }),
  ]);
}

function cell(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      return printed(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : typeof value === 'bigint' ? value : null;
    case 'number':
      return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = Date.parse(value);
      return Number.isNaN(t) ? '<invalid>' : humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}

/** kubectl's jsonpath text of one value. */
function printed(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(sortedKeys(value));
  return String(value);
}

/** Go's encoding/json writes map keys in sorted order. */
function sortedKeys(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]));
}
