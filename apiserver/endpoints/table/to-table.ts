/**
 * Server-side printing for `kubectl get`: objects and lists converted to `Table` (meta/v1), with the kind's
 * columns (`KindStrategy.table`) or the default NAME / CREATED AT, and each row's object per
 * `includeObject` (None, Metadata (default) as PartialObjectMetadata, Object).
 *
 * The Table's apiVersion is the group/version the client asked for (`meta.k8s.io/v1`, `meta.k8s.io/v1beta1`
 * or the same under the group domain), so a client that asked in either naming gets its own answer.
 */
import type { KubeObject, ListMeta } from '../../api/object.js';
import type { KindStrategy, TableColumn, TableConvention } from '../../registry/kind-strategy.js';
import { badRequest } from '../../errors/constructors.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

export interface TableOptions {
  /** `meta.k8s.io/v1` etc.: the group/version the client asked the Table in. */
  readonly apiVersion: string;
  readonly includeObject?: IncludeObject;
  /** Omit columnDefinitions (watch events after the first carry none in Kubernetes). */
  readonly noHeaders?: boolean;
  /** The instant AGE-like cells are computed against; one per response so a list is consistent. */
  readonly now?: Date;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.';

/** The convention of kinds that declare no columns: NAME and CREATED AT (the timestamp itself). */
export const defaultTableConvention: TableConvention = Object.freeze({
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0 },
  ],
  cells: (obj: KubeObject) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null],
});

/** Parses the `includeObject` query parameter (default Metadata); 400 with kube's ValidateTableOptions message. */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === null || value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** `PartialObjectMetadata` of an object, in the group/version of the Table request. */
export function toPartialObjectMetadata(obj: KubeObject, apiVersion: string): { kind: string; apiVersion: string; metadata: KubeObject['metadata'] } {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/** `PartialObjectMetadataList` of a list. */
export function toPartialObjectMetadataList(items: readonly KubeObject[], metadata: ListMeta, apiVersion: string): {
  kind: string;
  apiVersion: string;
  metadata: ListMeta;
  items: ReturnType<typeof toPartialObjectMetadata>[];
} {
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata, items: items.map((o) => toPartialObjectMetadata(o, apiVersion)) };
}

/** Converts one object (get) or the items of a list to a Table. */
export function toTable(strategy: KindStrategy, objects: readonly KubeObject[], listMeta: ListMeta, options: TableOptions): Table {
  const convention = strategy.table ?? defaultTableConvention;
  const now = options.now ?? new Date();
  const include = options.includeObject ?? 'Metadata';
  const rows: TableRow[] = objects.map((obj) => {
    const row: TableRow = { cells: [...convention.cells(obj, now)] };
    if (include === 'Object') row.object = obj;
    else if (include === 'Metadata') row.object = toPartialObjectMetadata(obj, options.apiVersion);
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: options.apiVersion,
    metadata: listMeta,
    columnDefinitions: options.noHeaders ? [] : [...convention.columns],
    rows,
  };
}
