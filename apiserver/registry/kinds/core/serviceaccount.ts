/**
 * ServiceAccount (core/v1): an identity for processes in pods, with the Secrets they may mount and use to
 * pull images. Kubernetes v1.32 validates only the metadata; the strategy reduces each `secrets` entry to
 * its name (the other reference fields are meaningless within the namespace) and warns about the
 * deprecated enforce-mountable-secrets annotation. DELETE answers with the deleted object. Serves the
 * `token` sub-resource (TokenRequest, serviceaccount-token.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { SERVICE_ACCOUNT_QUERY_PARAMETERS } from '../shared/reduced-query-parameters.js';
import { localObjectReferenceSchema, objectReferenceSchema } from '../shared/common-schemas.js';
import { legacyKey } from '../shared/legacy-domain.js';
import { atomicList, bool, keyedList } from '../shared/schema-builders.js';
import { serviceAccountToken } from './serviceaccount-token.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

const schema = kindSchema(
  'ServiceAccount binds together a name understood by users and perhaps by peripheral systems, a principal that can be authenticated and authorized, and a set of secrets.',
  {
    automountServiceAccountToken: bool(
      'Whether pods running as this service account get an API token mounted automatically. A pod can override it.',
    ),
    imagePullSecrets: atomicList(
      { ...localObjectReferenceSchema, default: {} },
      'Secrets in the same namespace used to pull the images of pods that use this account. Unlike secrets, usable by the node agent only.',
    ),
    secrets: keyedList(
      objectReferenceSchema,
      'Secrets in the same namespace that pods running as this account may use. Pods are limited to this list only when the enforce-mountable-secrets annotation is "true" (deprecated since v1.32). Not for locating generated token secrets: use the token request API instead.',
      ['name'],
    ),
  },
  undefined,
  { secrets: 2, imagePullSecrets: 3, automountServiceAccountToken: ptr(4) },
);

/** Keeps only the name of each `secrets` reference (cleanSecretReferences upstream). */
function cleanSecretReferences(obj: KubeObject): void {
  const list = obj.secrets;
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const ref = list[i] as { name?: unknown } | null;
    list[i] = ref !== null && typeof ref === 'object' && ref.name !== undefined ? { name: ref.name } : {};
  }
}

function warningsFor(obj: KubeObject, ctx: StrategyContext): string[] {
  const key = legacyKey(ctx.naming, 'enforce-mountable-secrets');
  if (obj.metadata.annotations?.[key] === undefined) return [];
  return [`metadata.annotations[${key}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`];
}

export const serviceAccounts = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: Object.freeze(['sa']),
  schema,
  deleteReturnsObject: true,
  publishedQueryParameters: SERVICE_ACCOUNT_QUERY_PARAMETERS,
  // POST serviceaccounts/<name>/token: TokenRequest (serviceaccount-token.ts).
  connectSubresources: Object.freeze([serviceAccountToken]),
  table: table(
    [nameColumn, column('Secrets', 'string', 'The number of secrets referenced by the account.'), ageColumn],
    (obj, now) => [nameCell(obj), Array.isArray(obj.secrets) ? obj.secrets.length : 0, ageCell(obj, now)],
  ),

  prepareForCreate(obj: KubeObject): void {
    cleanSecretReferences(obj);
  },

  prepareForUpdate(obj: KubeObject): void {
    cleanSecretReferences(obj);
  },

  warnings(obj: KubeObject, _old: KubeObject | undefined, ctx: StrategyContext): string[] {
    return warningsFor(obj, ctx);
  },
} satisfies KindStrategy);
