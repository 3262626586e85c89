/**
 * APIService validation with Kubernetes' messages (kube-aggregator's ValidateAPIService): the name must
 * be `<spec.version>.<spec.group>`, the group a DNS subdomain (empty only for the legacy `v1`), the
 * version a DNS-1035 label, groupPriorityMinimum in 1..20000 and versionPriority in 1..1000; a local
 * APIService (no `service`) has neither caBundle nor insecureSkipTLSVerify; a service names its namespace
 * and name and a valid port, and insecureSkipTLSVerify excludes a caBundle. The status sub-resource
 * checks each condition's status.
 *
 * The name's path-segment rules run in ObjectMeta validation (`nameRule: 'path-segment'`); the required
 * form is checked here only for names that pass them, as upstream's name function does.
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1035Label, isDNS1123Subdomain, isPathSegmentName, isValidPortNum } from '../../../validation/names.js';
import { conditionsOf, specOf } from './apiservice-conditions.js';
import { isObject } from '../../../api/json.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** caBundle is base64 in JSON: the byte count of its decoded form. */
const byteLength = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

export function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const group = text(spec.group);
  const version = text(spec.version);
  const requiredName = `${version}.${group}`;
  const name = obj.metadata.name ?? '';
  if (name !== '' && isPathSegmentName(name).length === 0 && name !== requiredName) {
    errs.push(invalidValue('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }

  if (group === '' && version !== 'v1') errs.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(invalidValue('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(invalidValue('spec.version', version, msg));

  const groupPriority = int(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(invalidValue('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = int(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(invalidValue('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));

  const insecure = spec.insecureSkipTLSVerify === true;
  const caBytes = byteLength(spec.caBundle);
  if (!isObject(spec.service)) {
    if (caBytes !== 0) errs.push(invalidValue('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(invalidValue('spec.insecureSkipTLSVerify', insecure, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const service = spec.service;
  if (text(service.namespace) === '') errs.push(required('spec.service.namespace', ''));
  if (text(service.name) === '') errs.push(required('spec.service.name', ''));
  const port = typeof service.port === 'number' ? service.port : 443;
  const portErrors = isValidPortNum(port);
  if (portErrors.length > 0) errs.push(invalidValue('spec.service.port', port, `port is not valid: ${portErrors.join(', ')}`));
  if (insecure && caBytes > 0) errs.push(invalidValue('spec.insecureSkipTLSVerify', insecure, 'may not be true if caBundle is present'));
  return errs;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export function validateAPIServiceStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('status').child('conditions');
  conditionsOf(obj).forEach((c, i) => {
    if (!(CONDITION_STATUSES as readonly string[]).includes(c.status)) errs.push(notSupported(path.index(i).child('status'), c.status, CONDITION_STATUSES));
  });
  return errs;
}
