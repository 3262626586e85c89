/**
 * CustomResourceDefinition validation, as Kubernetes v1.32's apiextensions validation, with its messages
 * and field paths (no Koa, no store: a pure function of the object, the old object on update, and the
 * extension prefix).
 *
 * Field paths follow Kubernetes' internal version, which is what its messages name: a v1 definition is
 * converted first, and per-version `schema`, `subresources` and `additionalPrinterColumns` that are
 * identical in every version move to the top level (`spec.validation.openAPIV3Schema...`,
 * `spec.subresources...`, `spec.additionalPrinterColumns[i]...`); the conversion webhook's settings are
 * `spec.conversion.webhookClientConfig` and `spec.conversion.conversionReviewVersions`. (Kubernetes' checks
 * that top-level and per-version values are exclusive, or not all identical, cannot fail for a v1 object
 * after that move, so they are not repeated here.) `selectableFields` identical in every version are
 * checked once, at `spec.selectableFields`.
 *
 * Covered: the name (`<plural>.<group>`), group, scope, names (DNS-1035 labels, kind/listKind), versions
 * (names, unique, exactly one storage version, `deprecationWarning` only when deprecated), schemas
 * (schema-validation.ts: structural rules, extensions, CEL rules and cost), subresources, printer columns,
 * selectable fields, conversion (strategy, webhook URL or service, review versions, CA bundle), the
 * deprecated `preserveUnknownFields`, the API approval annotation of Kubernetes' community groups, stored
 * versions, accepted names; on update the immutable group and plural (and scope and kind once
 * Established), and Kubernetes' leniency toward what is already stored (rules compiled as stored
 * expressions, no per-rule cost limit for unchanged schemas, no new conversion review version rule, a bad
 * CA bundle kept).
 *
 * Defaults inside schemas are validated against their schemas (default-validation.ts), and an update is
 * held only to the schema rules the stored definition already meets (update-leniency.ts: schemas present,
 * valid types, structural, pruned defaults, atomic set items, map-list keys).
 */
import { jsonEqual } from '../../patch/json-value.js';
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../../validation/names.js';
import type { PreexistingExpressions } from './crd-rules.js';
import { Extensions, isObject, objectAt, stringAt, type Json } from './json-schema-node.js';
import { validateColumns, validateSubresources } from './printer-columns.js';
import { validateCustomResourceValidation, type SchemaValidationOptions } from './schema-validation.js';
import { validateSelectableFields } from './selectable-fields.js';
import { ALL_REQUIREMENTS, requirementsForUpdate, type SchemaRequirements } from './update-leniency.js';
import { validateCABundle, validateWebhookService, validateWebhookUrl } from './webhook-client-config.js';

/** The ConversionReview versions this server speaks (Kubernetes' `acceptedConversionReviewVersions`). */
export const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
/** Kubernetes' annotation approving an API in a community group. */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

interface Options {
  readonly x: Extensions;
  readonly requireRecognizedConversionReviewVersion: boolean;
  readonly requireImmutableNames: boolean;
  readonly allowInvalidCABundle: boolean;
  readonly preexisting?: PreexistingExpressions;
  readonly versionsWithUnchangedSchemas: ReadonlySet<string>;
  readonly schemaRules: SchemaRequirements;
}

/** A v1 spec seen as Kubernetes' internal version (see the file comment). */
interface Internal {
  readonly spec: Json;
  readonly versions: readonly Json[];
  readonly validation: Json | undefined;
  readonly subresources: Json | undefined;
  readonly columns: readonly unknown[];
  readonly selectableFields: readonly unknown[];
  readonly hoisted: { readonly schema: boolean; readonly subresources: boolean; readonly columns: boolean; readonly selectableFields: boolean };
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const versionsOf = (spec: Json): Json[] => list(spec.versions).map((v) => (isObject(v) ? v : {}));

function internalOf(spec: Json): Internal {
  const versions = versionsOf(spec);
  const same = (get: (v: Json) => unknown): boolean => versions.length > 0 && versions.every((v) => jsonEqual(get(v), get(versions[0]!)));
  const emptyList = (v: unknown): unknown => (Array.isArray(v) && v.length === 0 ? undefined : v);
  const schema = same((v) => v.schema);
  const subresources = same((v) => v.subresources);
  const columns = same((v) => emptyList(v.additionalPrinterColumns));
  const selectableFields = same((v) => emptyList(v.selectableFields));
  const first = versions[0] ?? {};
  return {
    spec,
    versions,
    validation: schema ? objectAt(first, 'schema') : undefined,
    subresources: subresources ? objectAt(first, 'subresources') : undefined,
    columns: columns ? list(first.additionalPrinterColumns) : [],
    selectableFields: selectableFields ? list(first.selectableFields) : [],
    hoisted: { schema, subresources, columns, selectableFields },
  };
}

const hasStatus = (subresources: Json | undefined): boolean => subresources !== undefined && isObject(subresources.status);
const subresourcesFor = (i: Internal, v: Json): Json | undefined => (i.hoisted.subresources ? i.subresources : objectAt(v, 'subresources'));
const schemaFor = (i: Internal, v: Json): Json | undefined => objectAt((i.hoisted.schema ? i.validation : objectAt(v, 'schema')) ?? {}, 'openAPIV3Schema');

/** Create: every rule of the definition. */
export function validateCustomResourceDefinition(obj: KubeObject, extensionPrefix: string): FieldError[] {
  return validateCRD(obj, undefined, {
    x: new Extensions(extensionPrefix),
    requireRecognizedConversionReviewVersion: true,
    requireImmutableNames: false,
    allowInvalidCABundle: true,
    versionsWithUnchangedSchemas: new Set(),
    schemaRules: ALL_REQUIREMENTS,
  });
}

/** Update: the same rules, lenient toward what `old` already stores, plus the immutable fields. */
export function validateCustomResourceDefinitionUpdate(obj: KubeObject, old: KubeObject, extensionPrefix: string): FieldError[] {
  const oldSpec = specOf(old);
  const oldConversion = objectAt(oldSpec, 'conversion');
  const oldReviewVersions = list(objectAt(oldConversion ?? {}, 'webhook')?.conversionReviewVersions);
  const x = new Extensions(extensionPrefix);
  return validateCRD(obj, old, {
    x,
    requireRecognizedConversionReviewVersion: oldReviewVersions.length === 0 || oldReviewVersions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v as string)),
    requireImmutableNames: isEstablished(old),
    allowInvalidCABundle: allowInvalidCABundle(old),
    preexisting: preexistingExpressions(oldSpec, x),
    versionsWithUnchangedSchemas: unchangedSchemas(specOf(obj), oldSpec),
    schemaRules: requirementsForUpdate(oldSpec, x),
  });
}

const specOf = (o: KubeObject): Json => (isObject(o.spec) ? o.spec : {});

function isEstablished(o: KubeObject): boolean {
  const status = isObject(o.status) ? o.status : {};
  return list(status.conditions).some((c) => isObject(c) && c.type === 'Established' && c.status === 'True');
}

function allowInvalidCABundle(old: KubeObject): boolean {
  if (!isEstablished(old)) return true;
  const caBundle = stringAt(objectAt(objectAt(objectAt(specOf(old), 'conversion') ?? {}, 'webhook') ?? {}, 'clientConfig') ?? {}, 'caBundle');
  if (caBundle === '') return false;
  return validateCABundle(FieldPath.root('caBundle'), caBundle).length > 0;
}

function preexistingExpressions(spec: Json, x: Extensions): PreexistingExpressions {
  const rules = new Set<string>();
  const messageExpressions = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObject(v)) return;
    for (const r of list(v[x.validations])) {
      if (!isObject(r)) continue;
      if (typeof r.rule === 'string') rules.add(r.rule);
      if (typeof r.messageExpression === 'string' && r.messageExpression !== '') messageExpressions.add(r.messageExpression);
    }
    for (const child of Object.values(v)) walk(child);
  };
  for (const v of versionsOf(spec)) walk(objectAt(v, 'schema'));
  return { rules, messageExpressions };
}

function unchangedSchemas(spec: Json, oldSpec: Json): Set<string> {
  const out = new Set<string>();
  const oldVersions = new Map(versionsOf(oldSpec).map((v) => [stringAt(v, 'name'), v]));
  for (const v of versionsOf(spec)) {
    const o = oldVersions.get(stringAt(v, 'name'));
    if (o !== undefined && jsonEqual(v.schema, o.schema)) out.add(stringAt(v, 'name'));
  }
  return out;
}

function validateCRD(obj: KubeObject, old: KubeObject | undefined, opts: Options): FieldError[] {
  const spec = specOf(obj);
  const names = objectAt(spec, 'names') ?? {};
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name !== '' && name !== `${stringAt(names, 'plural')}.${stringAt(spec, 'group')}`) {
    errs.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  errs.push(...validateSpec(spec, opts));
  if (old !== undefined) errs.push(...immutables(spec, specOf(old), opts));
  const status = isObject(obj.status) ? obj.status : {};
  errs.push(...validateNames(objectAt(status, 'acceptedNames') ?? {}, FieldPath.root('status').child('acceptedNames')));
  errs.push(...validateStoredVersions(list(status.storedVersions), versionsOf(spec)));
  errs.push(...validateAPIApproval(obj, old));
  errs.push(...validatePreserveUnknownFields(spec, old === undefined ? undefined : specOf(old), opts.x));
  return errs;
}

function validateSpec(spec: Json, opts: Options): FieldError[] {
  const p = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const group = stringAt(spec, 'group');
  if (group === '') errs.push(required(p.child('group'), ''));
  else if (isDNS1123Subdomain(group).length > 0) errs.push(invalidValue(p.child('group'), group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(invalidValue(p.child('group'), group, 'should be a domain with at least one dot'));

  const scope = stringAt(spec, 'scope');
  if (scope === '') errs.push(required(p.child('scope'), ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(notSupported(p.child('scope'), scope, ['Cluster', 'Namespaced']));

  const internal = internalOf(spec);
  const preserveUnknownFields = spec.preserveUnknownFields === true;
  // Kubernetes' requireOpenAPISchema: on create, and on updates of definitions whose versions all had one.
  if (opts.schemaRules.requireOpenAPISchema && (internal.validation === undefined || objectAt(internal.validation, 'openAPIV3Schema') === undefined)) {
    internal.versions.forEach((v, i) => {
      if (objectAt(objectAt(v, 'schema') ?? {}, 'openAPIV3Schema') === undefined) {
        errs.push(required(p.child('versions').index(i).child('schema').child('openAPIV3Schema'), 'schemas are required'));
      }
    });
  }
  if (preserveUnknownFields && specHasDefaults(internal)) errs.push(invalidValue(p.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));

  const schemaOpts = (version: string): SchemaValidationOptions => ({
    x: opts.x,
    requireValidPropertyType: opts.schemaRules.requireValidPropertyType,
    requireStructuralSchema: opts.schemaRules.requireStructuralSchema,
    requireAtomicSetType: opts.schemaRules.requireAtomicSetType,
    requireMapListKeysMapSetValidation: opts.schemaRules.requireMapListKeysMapSetValidation,
    requirePrunedDefaults: opts.schemaRules.requirePrunedDefaults,
    suppressPerExpressionCost: opts.versionsWithUnchangedSchemas.has(version),
    ...(opts.preexisting === undefined ? {} : { preexisting: opts.preexisting }),
  });

  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  internal.versions.forEach((v, i) => {
    const vp = p.child('versions').index(i);
    const vname = stringAt(v, 'name');
    if (v.storage === true) storage++;
    if (seen.has(vname)) unique = false;
    seen.add(vname);
    const nameErrs = isDNS1035Label(vname);
    if (nameErrs.length > 0) errs.push(invalidValue(vp.child('name'), vname, nameErrs.join(',')));
    errs.push(...validateVersion(internal, v, vp, schemaOpts(vname)));
  });
  const versionsValue = list(spec.versions);
  if (!unique) errs.push(invalidValue(p.child('versions'), versionsValue, 'must contain unique version names'));
  if (storage !== 1) errs.push(invalidValue(p.child('versions'), versionsValue, 'must have exactly one version marked as storage version'));

  errs.push(...requiredNames(objectAt(spec, 'names') ?? {}, p.child('names')));
  errs.push(...validateNames(objectAt(spec, 'names') ?? {}, p.child('names')));

  const firstVersion = stringAt(internal.versions[0] ?? {}, 'name');
  errs.push(...validateCustomResourceValidation(internal.validation, internal.versions.some((v) => hasStatus(subresourcesFor(internal, v))), schemaOpts(firstVersion), p.child('validation')));
  errs.push(...validateSubresources(internal.subresources, p.child('subresources')));
  errs.push(...validateColumns(internal.columns, p.child('additionalPrinterColumns')));
  if (internal.selectableFields.length > 0) {
    const schema = objectAt(internal.validation ?? {}, 'openAPIV3Schema');
    if (schema === undefined) errs.push(invalidValue(p.child('selectableFields'), '', 'selectableFields may only be set when validations.schema is included'));
    else errs.push(...validateSelectableFields(internal.selectableFields, schema, p.child('selectableFields')));
  }

  const conversion = objectAt(spec, 'conversion');
  const strategy = conversion === undefined ? undefined : stringAt(conversion, 'strategy');
  if (conversion !== undefined && strategy !== 'None' && preserveUnknownFields) {
    errs.push(invalidValue(p.child('conversion').child('strategy'), strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(conversion, p.child('conversion'), opts));
  return errs;
}

function validateVersion(internal: Internal, v: Json, p: FieldPath, opts: SchemaValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const problem of deprecationWarningProblems(v.deprecated === true, v.deprecationWarning)) {
    errs.push(invalidValue(p.child('deprecationWarning'), v.deprecationWarning, problem));
  }
  if (!internal.hoisted.schema) errs.push(...validateCustomResourceValidation(objectAt(v, 'schema'), hasStatus(subresourcesFor(internal, v)), opts, p.child('schema')));
  if (!internal.hoisted.subresources) errs.push(...validateSubresources(objectAt(v, 'subresources'), p.child('subresources')));
  if (!internal.hoisted.columns) errs.push(...validateColumns(v.additionalPrinterColumns, p.child('additionalPrinterColumns')));
  const selectable = list(v.selectableFields);
  if (!internal.hoisted.selectableFields && selectable.length > 0) {
    const schema = schemaFor(internal, v);
    if (schema === undefined) errs.push(invalidValue(p.child('selectableFields'), '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
    else errs.push(...validateSelectableFields(selectable, schema, p.child('selectableFields')));
  }
  return errs;
}

/** Kubernetes' `validateDeprecationWarning`: byte lengths and byte offsets, as Go counts them. */
export function deprecationWarningProblems(deprecated: boolean, warning: unknown): string[] {
  if (warning === undefined || warning === null) return [];
  if (!deprecated) return ['can only be set for deprecated versions'];
  const text = typeof warning === 'string' ? warning : String(warning);
  const problems: string[] = [];
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > 256) problems.push('must be <= 256 characters long');
  if (bytes === 0) problems.push('must not be an empty string');
  let offset = 0;
  for (const ch of text) {
    // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
    if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
      problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return problems;
}

function requiredNames(names: Json, p: FieldPath): FieldError[] {
  return ['plural', 'singular', 'kind', 'listKind'].filter((k) => stringAt(names, k) === '').map((k) => required(p.child(k), ''));
}

/** Kubernetes' `ValidateCustomResourceDefinitionNames` (spec.names and status.acceptedNames). */
export function validateNames(names: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const label = (key: string, value: string, lower: boolean): void => {
    if (value === '') return;
    const problems = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (problems.length === 0) return;
    errs.push(invalidValue(p.child(key), value, lower ? `may have mixed case, but should otherwise match: ${problems.join(',')}` : problems.join(',')));
  };
  label('plural', stringAt(names, 'plural'), false);
  label('singular', stringAt(names, 'singular'), false);
  label('kind', stringAt(names, 'kind'), true);
  label('listKind', stringAt(names, 'listKind'), true);
  list(names.shortNames).forEach((s, i) => {
    const problems = isDNS1035Label(String(s));
    if (problems.length > 0) errs.push(invalidValue(p.child('shortNames').index(i), s, problems.join(',')));
  });
  const kind = stringAt(names, 'kind');
  if (kind !== '' && kind === stringAt(names, 'listKind')) errs.push(invalidValue(p.child('listKind'), kind, 'kind and listKind may not be the same'));
  list(names.categories).forEach((c, i) => {
    const problems = isDNS1035Label(String(c));
    if (problems.length > 0) errs.push(invalidValue(p.child('categories').index(i), c, problems.join(',')));
  });
  return errs;
}

function validateConversion(conversion: Json | undefined, p: FieldPath, opts: Options): FieldError[] {
  if (conversion === undefined) return [];
  const errs: FieldError[] = [];
  const strategy = stringAt(conversion, 'strategy');
  if (strategy === '') errs.push(required(p.child('strategy'), ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported(p.child('strategy'), strategy, ['None', 'Webhook']));
  const webhook = objectAt(conversion, 'webhook');
  const clientConfig = webhook === undefined ? undefined : objectAt(webhook, 'clientConfig');
  const reviewVersions = list(webhook?.conversionReviewVersions);
  const ccPath = p.child('webhookClientConfig');
  if (strategy === 'Webhook') {
    if (clientConfig === undefined) errs.push(required(ccPath, 'required when strategy is set to Webhook'));
    else {
      const url = clientConfig.url;
      const service = objectAt(clientConfig, 'service');
      const hasUrl = typeof url === 'string';
      if (hasUrl === (service !== undefined)) errs.push(required(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...validateWebhookUrl(ccPath.child('url'), url));
      else if (service !== undefined) {
        const port = typeof service.port === 'number' ? service.port : 443;
        const path = typeof service.path === 'string' ? service.path : undefined;
        errs.push(...validateWebhookService(ccPath.child('service'), stringAt(service, 'name'), stringAt(service, 'namespace'), path, port));
      }
      const caBundle = stringAt(clientConfig, 'caBundle');
      if (caBundle !== '' && !opts.allowInvalidCABundle) errs.push(...validateCABundle(ccPath.child('caBundle'), caBundle));
    }
    errs.push(...validateReviewVersions(reviewVersions, opts.requireRecognizedConversionReviewVersion, p.child('conversionReviewVersions')));
  } else {
    if (clientConfig !== undefined) errs.push(forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errs.push(forbidden(p.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateReviewVersions(versions: readonly unknown[], requireRecognized: boolean, p: FieldPath): FieldError[] {
  if (versions.length === 0) return [required(p, '')];
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalidValue(p.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const problem of isDNS1035Label(String(v))) errs.push(invalidValue(p.index(i), v, problem));
    if (ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v as string)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalidValue(p, versions, `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function immutables(spec: Json, oldSpec: Json, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const p = FieldPath.root('spec');
  const immutable = (at: FieldPath, now: unknown, before: unknown): void => {
    if (!jsonEqual(now, before)) errs.push(invalidValue(at, now, 'field is immutable'));
  };
  const names = objectAt(spec, 'names') ?? {};
  const oldNames = objectAt(oldSpec, 'names') ?? {};
  if (opts.requireImmutableNames) {
    immutable(p.child('scope'), spec.scope, oldSpec.scope);
    immutable(p.child('names').child('kind'), names.kind, oldNames.kind);
  }
  immutable(p.child('group'), spec.group, oldSpec.group);
  immutable(p.child('names').child('plural'), names.plural, oldNames.plural);
  return errs;
}

function validateStoredVersions(stored: readonly unknown[], versions: readonly Json[]): FieldError[] {
  const p = FieldPath.root('status').child('storedVersions');
  if (stored.length === 0) return [invalidValue(p, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<unknown, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const name = stringAt(v, 'name');
    const found = remaining.has(name);
    if (v.storage === true && !found) errs.push(invalidValue(p, stored, `must have the storage version ${name}`));
    if (found) remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    const s = String(v);
    errs.push(
      invalidValue(
        p.index(i),
        v,
        `missing from spec.versions; ${s} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${s} and removes ${s} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

/** Kubernetes' community groups: `k8s.io`, `kubernetes.io` and their subdomains. */
export const isProtectedCommunityGroup = (group: string): boolean =>
  group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');

type ApprovalState = 'missing' | 'bypassed' | 'invalid' | 'approved';

function approvalState(annotations: Readonly<Record<string, string>> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[API_APPROVED_ANNOTATION] ?? '';
  if (value === '') {
    return { state: 'missing', reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` };
  }
  if (value.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  // Go's url.ParseRequestURI: an absolute URI or an absolute path.
  if (!/^([a-zA-Z][a-zA-Z0-9+.-]*:|\/)\S*$/.test(value)) {
    return {
      state: 'invalid',
      reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    };
  }
  return { state: 'approved', reason: `approved in ${value}` };
}

function validateAPIApproval(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(stringAt(specOf(obj), 'group'))) return [];
  const now = approvalState(obj.metadata.annotations);
  // An unchanged state never fails, so controllers updating an old definition are not blocked.
  if (old !== undefined && approvalState(old.metadata.annotations).state === now.state) return [];
  const at = FieldPath.root('metadata').child('annotations').key(API_APPROVED_ANNOTATION);
  if (now.state === 'missing') return [required(at, now.reason)];
  if (now.state === 'invalid') return [invalidValue(at, obj.metadata.annotations?.[API_APPROVED_ANNOTATION], now.reason)];
  return [];
}

function validatePreserveUnknownFields(spec: Json, oldSpec: Json | undefined, x: Extensions): FieldError[] {
  if (oldSpec?.preserveUnknownFields === true) return [];
  if (spec.preserveUnknownFields !== true) return [];
  return [invalidValue('spec.preserveUnknownFields', true, `cannot set to true, set ${x.preserveUnknownFields} to true in spec.versions[*].schema instead`)];
}

function specHasDefaults(internal: Internal): boolean {
  const has = (v: unknown): boolean => {
    if (Array.isArray(v)) return v.some(has);
    if (!isObject(v)) return false;
    return v.default !== undefined || Object.values(v).some(has);
  };
  return has(internal.validation) || internal.versions.some((v) => has(v.schema));
}
