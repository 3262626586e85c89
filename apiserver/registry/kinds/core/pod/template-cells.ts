/**
 * The Table cells every kind with a pod template prints (kube-apiserver's printers.go layoutContainerCells):
 * the template's container names and images, each list joined by commas.
 */
import type { TableColumn } from '../../../kind-strategy.js';
import { column } from '../../shared/table.js';
import { arrayAt, isObject, objectAt, objectItems } from './json-values.js';

/** The CONTAINERS and IMAGES columns of {@link containerCells} as the workload kinds list them: `-o wide` only. */
export const wideContainerColumns: readonly TableColumn[] = Object.freeze([
  column('Containers', 'string', 'Names of each container in the template.', 1),
  column('Images', 'string', 'Images referenced by each container in the template.', 1),
]);

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
