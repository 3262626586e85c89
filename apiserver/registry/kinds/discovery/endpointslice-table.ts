/**
 * `kubectl get endpointslices` columns as kube-apiserver 1.32 prints them: NAME, ADDRESSTYPE, PORTS,
 * ENDPOINTS and AGE. PORTS lists up to three ports (the number, else the port's name, else `*` for "all
 * ports"), ENDPOINTS up to three addresses across all endpoints; a longer list ends in ` + N more...`
 * and an empty one reads `<unset>`.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { isObject } from '../../../api/json.js';

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (isObject(v) ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const MAX_SHOWN = 3;

/** The first three entries joined by commas, then ` + N more...`; `<unset>` when there are none. */
function listWithMore(items: readonly string[]): string {
  const shown = items.slice(0, MAX_SHOWN).join(',');
  if (items.length > MAX_SHOWN) return `${shown} + ${items.length - MAX_SHOWN} more...`;
  return shown === '' ? '<unset>' : shown;
}

function portLabel(raw: unknown): string {
  const port = record(raw) ?? {};
  if (typeof port.port === 'number') return String(port.port);
  if (typeof port.name === 'string') return port.name;
  return '*';
}

export const formatPorts = (ports: unknown): string => listWithMore(list(ports).map(portLabel));

export const formatEndpoints = (endpoints: unknown): string =>
  listWithMore(list(endpoints).flatMap((ep) => list(record(ep)?.addresses).map((a) => (typeof a === 'string' ? a : ''))));

export const endpointSliceTable: TableConvention = table(
  [
    nameColumn,
    column('AddressType', 'string', 'The type of address carried by this EndpointSlice; all addresses in the slice are of the same type.'),
    column('Ports', 'string', 'The network ports exposed by each endpoint in this slice.'),
    column('Endpoints', 'string', 'The unique endpoints in this slice.'),
    ageColumn,
  ],
  (obj: KubeObject, now) => [nameCell(obj), typeof obj.addressType === 'string' ? obj.addressType : '', formatPorts(obj.ports), formatEndpoints(obj.endpoints), ageCell(obj, now)],
);
