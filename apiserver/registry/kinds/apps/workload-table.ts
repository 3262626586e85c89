/**
 * A cell shared by the workload tables (kube-apiserver's printers.go): a replica count read as Go reads an
 * int32 field (0 when absent). The containers and images cells are core/pod/template-cells.ts.
 */
import { isObject } from '../core/pod/json-values.js';

/** An integer field of `obj` (spec or status), 0 when absent. */
export const count = (obj: unknown, key: string): number => {
  const v = isObject(obj) ? obj[key] : undefined;
  return typeof v === 'number' ? v : 0;
};
