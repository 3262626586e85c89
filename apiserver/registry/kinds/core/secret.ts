/**
 * Secret (core/v1): typed key/value data, base64 in `data`, with the write-only `stringData` merged into
 * `data` on every write and never stored or returned. Validation follows Kubernetes v1.32
 * (`ValidateSecret`, `ValidateSecretUpdate`): config-key names, 1 MiB of values in total, the keys each
 * well-known type requires, `type` immutable, and `immutable: true` freezing `data` for good.
 *
 * Well-known types carry the legacy domain (`kubernetes.io/tls` under `--group-domain=k8s.io`,
 * `platform.io/tls` otherwise; see legacy-domain.ts), so the type constants come from the request's
 * Naming, never from literals.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import { FieldPath, forbidden, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { asMap, byteSize, checkDataMap, dataTooLong, MAX_DATA_SIZE, sameMap } from '../shared/data-maps.js';
import { legacyDomain, legacyKey } from '../shared/legacy-domain.js';
import { bool, byteMap, str, stringMap } from '../shared/schema-builders.js';
import { ageCell, ageColumn, column, countKeys, nameCell, nameColumn, table } from '../shared/table.js';
import { tlsKeyPairWarning } from '../shared/tls-key-pair.js';

export const SECRET_TYPE_OPAQUE = 'Opaque';

const schema = kindSchema('Secret holds secret data of a certain type. The total bytes of the values in the data field must be less than 1 MiB.', {
  data: byteMap(
    "The secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values are arbitrary bytes, base64-encoded in JSON and YAML.",
  ),
  immutable: bool('If true, only metadata can be modified afterwards: data and type are frozen. Unset means false. Cannot be unset once true.'),
  stringData: stringMap(
    'Write-only convenience for non-binary data: each entry is merged into data on write, overwriting an entry of the same key. Never returned on read.',
  ),
  type: str('Used to facilitate programmatic handling of secret data (Opaque when empty). Cannot be changed.'),
}, undefined, { data: 2, type: 3, stringData: 4, immutable: ptr(5) });

const immutableMsg = 'field is immutable when `immutable` is set';
const redacted = '<secret contents redacted>';

/** The `type` defaults to Opaque (SetDefaults_Secret). */
function defaultType(obj: KubeObject): void {
  if (obj.type === undefined || obj.type === null || obj.type === '') obj.type = SECRET_TYPE_OPAQUE;
}

/** Merges `stringData` into `data` (stringData wins) and drops it, as Kubernetes' conversion does. */
export function mergeStringData(obj: KubeObject): void {
  const stringData = asMap(obj.stringData);
  if (stringData !== undefined) {
    let data = asMap(obj.data);
    for (const key in stringData) {
      const v = stringData[key];
      if (typeof v !== 'string') continue;
      if (data === undefined) obj.data = data = {};
      data[key] = Buffer.from(v, 'utf8').toString('base64');
    }
  }
  delete obj.stringData;
}

const dataPath = FieldPath.root('data');

/** Go's `json.Unmarshal` into a map, as far as its error decides validity. */
function jsonObjectError(base64: unknown): string | undefined {
  const text = typeof base64 === 'string' ? Buffer.from(base64, 'base64').toString('utf8') : '';
  if (text.trim() === '') return 'unexpected end of JSON input';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const type = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}

const has = (data: Record<string, unknown> | undefined, key: string): boolean => data !== undefined && Object.prototype.hasOwnProperty.call(data, key);

function validateType(obj: KubeObject, data: Record<string, unknown> | undefined, ctx: StrategyContext, errs: FieldError[]): void {
  const domain = legacyDomain(ctx.naming);
  switch (obj.type) {
    case `${domain}/service-account-token`: {
      const key = legacyKey(ctx.naming, 'service-account.name');
      if (!obj.metadata.annotations?.[key]) errs.push(required(FieldPath.root('metadata').child('annotations').key(key), ''));
      break;
    }
    case `${domain}/dockercfg`:
    case `${domain}/dockerconfigjson`: {
      const key = obj.type.endsWith('/dockercfg') ? '.dockercfg' : '.dockerconfigjson';
      if (!has(data, key)) {
        errs.push(required(dataPath.key(key), ''));
        break;
      }
      const err = jsonObjectError(data![key]);
      if (err !== undefined) errs.push(invalidValue(dataPath.key(key), redacted, err));
      break;
    }
    case `${domain}/basic-auth`:
      // Either may be empty, but one of the two keys must be present.
      if (!has(data, 'username') && !has(data, 'password')) {
        errs.push(required(dataPath.key('username'), ''), required(dataPath.key('password'), ''));
      }
      break;
    case `${domain}/ssh-auth`:
      if (byteSize(data?.['ssh-privatekey']) === 0) errs.push(required(dataPath.key('ssh-privatekey'), ''));
      break;
    case `${domain}/tls`:
      if (!has(data, 'tls.crt')) errs.push(required(dataPath.key('tls.crt'), ''));
      if (!has(data, 'tls.key')) errs.push(required(dataPath.key('tls.key'), ''));
      break;
    case `bootstrap.${domain}/token`:
      // The bootstrap token authenticator needs both halves of the token.
      if (!has(data, 'token-id')) errs.push(required(dataPath.key('token-id'), ''));
      if (!has(data, 'token-secret')) errs.push(required(dataPath.key('token-secret'), ''));
      break;
    default:
      break;
  }
}

export const secrets = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  singular: 'secret',
  namespaced: true,
  schema,
  table: table(
    [
      nameColumn,
      column('Type', 'string', 'The type of the secret.'),
      column('Data', 'string', 'The number of entries in data.'),
      ageColumn,
    ],
    (obj, now) => [nameCell(obj), typeof obj.type === 'string' ? obj.type : '', countKeys(obj.data), ageCell(obj, now)],
  ),
  selectableFields: Object.freeze({ type: (obj: KubeObject) => (typeof obj.type === 'string' ? obj.type : '') }),

  prepareForCreate(obj: KubeObject): void {
    defaultType(obj);
    mergeStringData(obj);
  },

  prepareForUpdate(obj: KubeObject): void {
    defaultType(obj);
    mergeStringData(obj);
  },

  validate(obj: KubeObject, ctx: StrategyContext): FieldError[] {
    const errs: FieldError[] = [];
    const data = asMap(obj.data);
    if (checkDataMap(data, 'data', byteSize, errs) > MAX_DATA_SIZE) errs.push(dataTooLong('data'));
    validateType(obj, data, ctx, errs);
    return errs;
  },

  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
    const errs: FieldError[] = [];
    if (obj.type !== old.type) errs.push(invalidValue('type', obj.type, 'field is immutable'));
    if (old.immutable === true) {
      if (obj.immutable !== true) errs.push(forbidden('immutable', immutableMsg));
      // stringData needs no check: it was merged into data before validation.
      if (!sameMap(obj.data, old.data)) errs.push(forbidden('data', immutableMsg));
    }
    return errs;
  },

  warnings(obj: KubeObject, _old: KubeObject | undefined, ctx: StrategyContext): string[] {
    if (obj.type !== legacyKey(ctx.naming, 'tls')) return [];
    const data = asMap(obj.data);
    const w = tlsKeyPairWarning(data?.['tls.crt'], data?.['tls.key']);
    return w === undefined ? [] : [w];
  },

  canonicalize(obj: KubeObject): void {
    delete obj.stringData;
  },
} satisfies KindStrategy);
