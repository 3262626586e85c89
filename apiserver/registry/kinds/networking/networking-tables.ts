/**
 * `kubectl get` columns of the networking kinds as kube-apiserver 1.32 prints them.
 *
 * - ServiceCIDR: NAME, CIDRS (the blocks joined by commas), AGE.
 * - IPAddress: NAME and PARENTREF (`<resource>[.<group>]/[<namespace>/]<name>`, lower-cased, or `<none>`).
 *   Kubernetes declares only those two columns but fills a third cell with the age; kubectl prints the
 *   declared columns, so the row carries the extra cell exactly as upstream's does.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { arrayAt, isObject, stringAt } from '../core/pod/json-values.js';

export const serviceCIDRTable: TableConvention = table(
  [
    nameColumn,
    column('CIDRs', 'string', 'CIDRs defines the IP blocks in CIDR notation from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family.'),
    ageColumn,
  ],
  (obj: KubeObject, now) => {
    const cidrs = arrayAt(isObject(obj.spec) ? obj.spec : {}, 'cidrs').filter((c): c is string => typeof c === 'string');
    return [nameCell(obj), cidrs.join(','), ageCell(obj, now)];
  },
);

/** The PARENTREF cell: schema.GroupResource's text, then the namespace and name, lower-cased as upstream. */
export function parentRefCell(obj: KubeObject): string {
  const ref = isObject(obj.spec) && isObject(obj.spec.parentRef) ? obj.spec.parentRef : undefined;
  if (ref === undefined) return '<none>';
  const group = stringAt(ref, 'group');
  const resource = stringAt(ref, 'resource');
  let text = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
  const namespace = stringAt(ref, 'namespace');
  if (namespace !== '') text += `/${namespace}`;
  return `${text}/${stringAt(ref, 'name')}`;
}

export const ipAddressTable: TableConvention = table(
  [nameColumn, column('ParentRef', 'string', 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.')],
  (obj: KubeObject, now) => [nameCell(obj), parentRefCell(obj), ageCell(obj, now)],
);
