/**
 * Which of a CustomResourceDefinition's requested names it may use, as Kubernetes' naming controller
 * decides (the NamesAccepted condition): a name already accepted for this definition stays; a new one is
 * taken only when no other definition of the same group uses it, and no built-in resource of the group
 * either (Kubernetes checks other definitions only; the documents ask for built-ins too). Plural, singular
 * and short names share one namespace, kind and listKind another. Every conflict keeps the previously
 * accepted name and sets NamesAccepted False with the reason of the LAST conflicting member
 * (PluralConflict, SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict) and
 * `"<name>" is already in use`.
 *
 * Established: kept when already True; otherwise True (InitialNamesAccepted) once the names are accepted,
 * else False (NotAccepted). Kubernetes sets it in a second controller a moment later; setting it in the same
 * write saves a round of status writes, and every replica serves a definition from the moment it reads
 * Established (apiextensions/serving/crd-controller.ts).
 */
import type { KubeObject } from '../../api/object.js';
import { findCondition, type CrdCondition } from '../../registry/kinds/apiextensions/crd-conditions.js';
import { isObject, objectAt, stringAt, type Json } from '../../registry/kinds/apiextensions/json-schema-node.js';

/** `spec.names` / `status.acceptedNames`, as stored (absent members omitted). */
export interface CrdNames {
  readonly plural?: string;
  readonly singular?: string;
  readonly shortNames?: readonly string[];
  readonly kind?: string;
  readonly listKind?: string;
  readonly categories?: readonly string[];
}

/** Names other than the definition's own, in its group. */
export interface UsedNames {
  /** Plurals, singulars and short names. */
  readonly resources: ReadonlySet<string>;
  /** Kinds and list kinds. */
  readonly kinds: ReadonlySet<string>;
}

export interface NamesDecision {
  readonly acceptedNames: CrdNames;
  readonly namesAccepted: CrdCondition;
  readonly established: CrdCondition;
}

export const specNamesOf = (crd: KubeObject): CrdNames => namesAt(objectAt(isObject(crd.spec) ? crd.spec : {}, 'names'));
export const acceptedNamesOf = (crd: KubeObject): CrdNames => namesAt(objectAt(isObject(crd.status) ? crd.status : {}, 'acceptedNames'));

/** Names as stored, in one member order, empty ones left out (compare with JSON.stringify). */
export function namesAt(n: Json | undefined): CrdNames {
  if (n === undefined) return {};
  const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
  const out: { -readonly [K in keyof CrdNames]: CrdNames[K] } = {};
  for (const k of ['plural', 'singular', 'kind', 'listKind'] as const) if (stringAt(n, k) !== '') out[k] = stringAt(n, k);
  const shortNames = list(n.shortNames);
  const categories = list(n.categories);
  if (shortNames !== undefined) out.shortNames = shortNames;
  if (categories !== undefined) out.categories = categories;
  return out;
}

/** The names of the definitions (other than `self`) and built-in resources of `group`. */
export function usedNames(self: string, group: string, others: Iterable<KubeObject>, builtins: Iterable<{ resource: string; singular: string; shortNames?: readonly string[]; kind: string }>): UsedNames {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  const add = (set: Set<string>, v: string | undefined): void => {
    if (v !== undefined && v !== '') set.add(v);
  };
  for (const crd of others) {
    if (crd.metadata.name === self || stringAt(isObject(crd.spec) ? crd.spec : {}, 'group') !== group) continue;
    const n = acceptedNamesOf(crd);
    add(resources, n.plural);
    add(resources, n.singular);
    for (const s of n.shortNames ?? []) add(resources, s);
    add(kinds, n.kind);
    add(kinds, n.listKind);
  }
  for (const b of builtins) {
    add(resources, b.resource);
    add(resources, b.singular);
    for (const s of b.shortNames ?? []) add(resources, s);
    add(kinds, b.kind);
    add(kinds, `${b.kind}List`);
  }
  return { resources, kinds };
}

const inUse = (name: string): string => `${JSON.stringify(name)} is already in use`;

/** Kubernetes' rule: the requested name is fine when it is the accepted one, or nobody else uses it. */
const fresh = (requested: string | undefined, accepted: string | undefined, used: ReadonlySet<string>): boolean =>
  requested === accepted || requested === undefined || !used.has(requested);

export function decideNames(crd: KubeObject, used: UsedNames): NamesDecision {
  const requested = specNamesOf(crd);
  const accepted = acceptedNamesOf(crd);
  const next: { -readonly [K in keyof CrdNames]: CrdNames[K] } = { ...accepted };
  let conflict: { reason: string; message: string } | undefined;

  const single = (member: 'plural' | 'singular' | 'kind' | 'listKind', set: ReadonlySet<string>, reason: string): void => {
    if (fresh(requested[member], accepted[member], set)) {
      if (requested[member] === undefined) delete next[member];
      else next[member] = requested[member];
    } else conflict = { reason, message: inUse(requested[member]!) };
  };
  single('plural', used.resources, 'PluralConflict');
  single('singular', used.resources, 'SingularConflict');
  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const ours = new Set(accepted.shortNames ?? []);
    const taken = (requested.shortNames ?? []).filter((s) => !ours.has(s) && used.resources.has(s));
    // One message as is, several as Go's error aggregate prints them.
    if (taken.length > 0) conflict = { reason: 'ShortNamesConflict', message: taken.length === 1 ? inUse(taken[0]!) : `[${taken.map(inUse).join(', ')}]` };
    else if (requested.shortNames === undefined) delete next.shortNames;
    else next.shortNames = requested.shortNames;
  }
  single('kind', used.kinds, 'KindConflict');
  single('listKind', used.kinds, 'ListKindConflict');
  if (requested.categories === undefined) delete next.categories;
  else next.categories = requested.categories;

  const namesAccepted: CrdCondition = conflict === undefined
    ? { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
    : { type: 'NamesAccepted', status: 'False', ...conflict };
  const old = findCondition(crd, 'Established');
  let established: CrdCondition;
  if (old?.status === 'True') established = old;
  else if (namesAccepted.status === 'True') established = { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
  else established = old ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  // plural and kind are always written (empty while not accepted), as Kubernetes' JSON has them.
  return { acceptedNames: { plural: next.plural ?? '', ...next, kind: next.kind ?? '' }, namesAccepted, established };
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
