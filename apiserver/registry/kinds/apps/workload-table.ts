/**
 * Cells shared by the workload tables (kube-apiserver's printers.go): the template's containers and
 * images, each list joined by commas (layoutContainerCells), and a replica count read as Go reads an
 * int32 field (0 when absent).
 */
import { arrayAt, isObject, objectAt, objectItems } from '../core/pod/json-values.js';

/** `[names, images]` of the containers of a pod template (an absent template has none). */
export function containerCells(template: unknown): [string, string] {
  const spec = isObject(template) ? (objectAt(template, 'spec') ?? {}) : {};
  const names: string[] = [];
  const images: string[] = [];
  for (const [, c] of objectItems(arrayAt(spec, 'containers'))) {
    names.push(typeof c.name === 'string' ? c.name : '');
    images.push(typeof c.image === 'string' ? c.image : '');
  }
  return [names.join(','), images.join(',')];
}

/** An integer field of `obj` (spec or status), 0 when absent. */
export const count = (obj: unknown, key: string): number => {
  const v = isObject(obj) ? obj[key] : undefined;
  return typeof v === 'number' ? v : 0;
};
