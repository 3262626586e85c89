/**
 * The server-side apply branch of PATCH (`application/apply-patch+yaml`; JSON is YAML): the body is the
 * applier's configuration, merged by the registry with Kubernetes' ownership rules (conflicts 409 unless
 * `force=true`, create when missing: 201). Duplicate keys follow `fieldValidation` (Strict: 400
 * `error strict decoding YAML: ...`; Warn: warnings). A create through apply is admitted as a create, as a POST is. Also the `If-Match` precondition every PATCH honours.
 */
import { badRequest } from '../../errors/constructors.js';
import { applyObject } from '../../registry/generic/apply.js';
import type { WriteOptions } from '../../request/query.js';
import { duplicateFieldMessage } from '../../schema/unknown-fields.js';
import { parseYamlStrict } from '../../schema/yaml-strict.js';
import { fieldManagerOf } from './field-manager.js';
import { requesterOf } from '../../authorization/access.js';
import { writeAdmissionOf } from './admission.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { genericSubresourceOf } from '../../registry/kind-strategy.js';

/** The resourceVersion of an `If-Match` header (`"42"`, `W/"42"`, `42`, `*`), undefined without one. */
export function ifMatchOf(scope: RequestScope): string | undefined {
  const h = scope.ctx.get('If-Match').trim();
  if (h === '') return undefined;
  return h.replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/** The apply configuration of an `application/apply-patch+yaml` body (JSON is YAML). */
export function parseApplyYaml(text: string, options: WriteOptions): StrictParse {
  return parseYamlStrict(text, options.fieldValidation !== 'Ignore');
}

interface StrictParse {
  readonly value: unknown;
  readonly duplicateFields: readonly string[];
}

/** Applies a parsed apply configuration (from YAML, or CBOR for `application/apply-patch+cbor`). */
export async function handleApplyPatch(scope: RequestScope, parsed: StrictParse, options: WriteOptions): Promise<void> {
  const { info, served } = scope;
  const { value, duplicateFields } = parsed;
  const messages = duplicateFields.map(duplicateFieldMessage);
  if (messages.length > 0 && options.fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: ${messages.join(', ')}`);
  const ifMatch = ifMatchOf(scope);
  const result = await applyObject(served.registry.context, info.namespace, info.name, value, {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    subresource: genericSubresourceOf(info.subresource),
    requester: requesterOf(scope.ctx.state),
    force: options.force === true,
    ...(ifMatch === undefined ? {} : { ifMatch }),
    admission: writeAdmissionOf(scope, 'PatchOptions', options),
    signal: scope.ctx.state.signal,
  });
  addWarnings(scope, [...messages, ...result.warnings]);
  await respond(scope, result.created ? 201 : 200, { type: 'object', object: result.object });
}
