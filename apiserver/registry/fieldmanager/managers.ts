/**
 * `metadata.managedFields` decoded into one field set per manager, and encoded back.
 *
 * A manager's identity is what Kubernetes' `BuildManagerIdentifier` keeps: manager name, operation,
 * apiVersion (Update only: an applier stays one manager whatever version it applies) and sub-resource.
 * Decoding refuses what Kubernetes refuses (operation other than Apply/Update, empty apiVersion, a
 * fieldsType other than FieldsV1, an undecodable fieldsV1); entries of one identity are merged. Encoding
 * drops empty sets and sorts as Kubernetes does: Apply before Update, then by time (no time first), manager,
 * apiVersion, sub-resource.
 */
import type { ManagedFieldsEntry } from '../../api/object.js';
import { decodeFieldsV1, encodeFieldsV1 } from './fieldpath/fields-v1.js';
import { FieldSet } from './fieldpath/set.js';
import { isObject } from '../../api/json.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  /** '' for the main resource. */
  readonly subresource: string;
  /** RFC 3339; absent when an apply that changed nothing created the entry (as Kubernetes). */
  readonly time?: string;
  readonly set: FieldSet;
}

/** Identity -> entry. Insertion order does not matter: encoding sorts. */
export type Managers = Map<string, ManagerEntry>;

export class ManagedFieldsError extends Error {
  override readonly name = 'ManagedFieldsError';
}

/** The identity of a manager, in the JSON form Kubernetes uses (and prints back in conflict messages). */
export function managerId(e: { readonly manager: string; readonly operation: Operation; readonly apiVersion: string; readonly subresource: string }): string {
  const o: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation === 'Update' && e.apiVersion !== '') o.apiVersion = e.apiVersion;
  if (e.subresource !== '') o.subresource = e.subresource;
  return JSON.stringify(o);
}

/** Decodes a managedFields list; throws ManagedFieldsError as Kubernetes' DecodeManagedFields fails. */
export function decodeManagedFields(entries: unknown): Managers {
  const out: Managers = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((e: unknown, i) => {
    if (!isObject(e)) throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    for (const k of ['manager', 'time', 'subresource']) {
      if (e[k] !== undefined && typeof e[k] !== 'string') throw new ManagedFieldsError(`${k} of managed fields entry ${i} must be a string`);
    }
    let set: FieldSet;
    try {
      set = e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : decodeFieldsV1(e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set of entry ${i}: ${(err as Error).message}`);
    }
    const entry: ManagerEntry = {
      manager: (e.manager as string | undefined) ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: (e.subresource as string | undefined) ?? '',
      ...(typeof e.time === 'string' ? { time: e.time } : {}),
      set,
    };
    const id = managerId(entry);
    const prev = out.get(id);
    out.set(id, prev === undefined ? entry : { ...entry, set: prev.set.union(set) });
  });
  return out;
}

/** True for the reset request: a list of exactly one empty entry (an empty list resets nothing). */
export function isResetRequest(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length === 1 && isObject(entries[0]) && Object.values(entries[0]).every((v) => v === undefined);
}

const seconds = (t: string | undefined): number => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000) || 0);

function compareEntries(p: ManagerEntry, q: ManagerEntry): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  const ps = seconds(p.time);
  const qs = seconds(q.time);
  if (ps !== qs) return ps - qs;
  if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
  if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
  return p.subresource < q.subresource ? -1 : p.subresource > q.subresource ? 1 : 0;
}

/** The managedFields list of `m` (undefined when no manager owns anything). */
export function encodeManagedFields(m: Managers): ManagedFieldsEntry[] | undefined {
  const entries = [...m.values()].filter((e) => !e.set.empty()).sort(compareEntries);
  if (entries.length === 0) return undefined;
  return entries.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time === undefined ? {} : { time: e.time }),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: encodeFieldsV1(e.set),
    ...(e.subresource === '' ? {} : { subresource: e.subresource }),
  }));
}
