/**
 * ServiceAccount, Kubernetes' admission plugin of that name for Pods (CREATE of the main resource), after
 * NamespaceLifecycle:
 *
 * - mutating: a pod without a service account runs as `default`; the account must exist (403
 *   `error looking up service account <ns>/<name>: serviceaccount "<name>" not found`); a pod without
 *   imagePullSecrets gets the account's;
 * - validating: the account is looked up again (it may have gone meanwhile) and, when its annotation
 *   `<legacy domain>/enforce-mountable-secrets` is true (`kubernetes.io/...` under `--group-domain=k8s.io`,
 *   `platform.io/...` otherwise; deprecated since 1.32, still honoured), the pod may only use Secrets the
 *   account lists in `secrets` (secret volumes, env `secretKeyRef`, `envFrom` secretRefs of containers and
 *   init containers) and only pull secrets it lists in `imagePullSecrets`: 403 with kube's message naming
 *   the first offender;
 * - mirror pods (annotation `<legacy domain>/config.mirror`) are left alone by the mutating phase and may
 *   reference neither a service account nor secrets nor service account token projections.
 *
 * As kube's plugin reads its informer, the account is read from the watch cache; one the cache does not
 * have yet is read from the store, and `default` (which the serviceaccount controller creates moments after
 * its namespace) is retried for up to about two seconds, as kube retries it.
 *
 * Not done (noted for later): kube's plugin also mounts the projected API token volume
 * (`kube-api-access-*`) into every container; DefaultTolerationSeconds is a separate plugin not run here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { forbidden } from '../../errors/constructors.js';
import { isStatusError, type StatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import { isObject, stringAt, type JsonObject } from '../../registry/kinds/core/pod/json-values.js';
import { legacyKey } from '../../registry/kinds/shared/legacy-domain.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionPlugin } from '../plugin.js';

/** The object, or {} for anything else (a wrong shape reads as absent, as in json-values.ts). */
const rec = (v: unknown): JsonObject => (isObject(v) ? v : {});
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(rec) : []);

/** The attempts kube makes for `default` before giving up (10, 100-200 ms apart). */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

/** Go's strconv.ParseBool true values; anything else (or a parse error) is false. */
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** The service account a pod names (`serviceAccount` is its deprecated alias). */
export const podServiceAccount = (pod: KubeObject): string => {
  const spec = rec(pod.spec);
  return stringAt(spec, 'serviceAccountName') || stringAt(spec, 'serviceAccount');
};

/** kube's admission.NewForbidden: the object's name, or its generateName before one is generated. */
function denied(a: AdmissionAttributes, message: string): StatusError {
  const name = a.name || a.object?.metadata.generateName || 'Unknown';
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, name, message);
}

/** The first secret reference of `pod` the account does not allow, as kube words it; undefined when none. */
export function disallowedSecretReference(pod: KubeObject, account: KubeObject): string | undefined {
  const spec = rec(pod.spec);
  const saName = account.metadata.name ?? '';
  const mountable = new Set(list(account.secrets).map((s) => stringAt(s, 'name')));
  for (const v of list(spec.volumes)) {
    const secret = v.secret;
    if (secret === undefined || secret === null) continue;
    const name = stringAt(rec(secret), 'secretName');
    if (!mountable.has(name)) return `volume with secret.secretName="${name}" is not allowed because service account ${saName} does not reference that secret`;
  }
  for (const [field, label] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    for (const c of list(spec[field])) {
      for (const env of list(c.env)) {
        const ref = rec(rec(env.valueFrom).secretKeyRef);
        if (Object.keys(ref).length > 0 && !mountable.has(stringAt(ref, 'name'))) {
          return `${label} ${stringAt(c, 'name')} with envVar ${stringAt(env, 'name')} referencing secret.secretName="${stringAt(ref, 'name')}" is not allowed because service account ${saName} does not reference that secret`;
        }
      }
      for (const from of list(c.envFrom)) {
        const ref = rec(from.secretRef);
        if (Object.keys(ref).length > 0 && !mountable.has(stringAt(ref, 'name'))) {
          return `${label} ${stringAt(c, 'name')} with envFrom referencing secret.secretName="${stringAt(ref, 'name')}" is not allowed because service account ${saName} does not reference that secret`;
        }
      }
    }
  }
  const pullable = new Set(list(account.imagePullSecrets).map((s) => stringAt(s, 'name')));
  const pulls = list(spec.imagePullSecrets);
  for (let i = 0; i < pulls.length; i++) {
    const name = stringAt(pulls[i]!, 'name');
    if (!pullable.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return undefined;
}

function usesSecrets(pod: KubeObject): boolean {
  const spec = rec(pod.spec);
  if (list(spec.volumes).some((v) => v.secret !== undefined && v.secret !== null)) return true;
  if (list(spec.imagePullSecrets).length > 0) return true;
  return ['initContainers', 'containers', 'ephemeralContainers'].some((field) =>
    list(spec[field]).some((c) => list(c.env).some((e) => rec(e.valueFrom).secretKeyRef !== undefined) || list(c.envFrom).some((f) => f.secretRef !== undefined)));
}

const usesTokenProjection = (pod: KubeObject): boolean =>
  list(rec(pod.spec).volumes).some((v) => list(rec(v.projected).sources).some((s) => s.serviceAccountToken !== undefined && s.serviceAccountToken !== null));

export function serviceAccountAdmission(resources: ServedResources, naming: Naming): AdmissionPlugin {
  const enforceKey = legacyKey(naming, 'enforce-mountable-secrets');
  const mirrorKey = legacyKey(naming, 'config.mirror');

  /** The account, or a 403 StatusError in kube's words. */
  const lookup = async (a: AdmissionAttributes, name: string): Promise<KubeObject> => {
    const registry = resources.lookup('', 'v1', 'serviceaccounts')?.registry;
    const fail = (err: unknown): StatusError => denied(a, `error looking up service account ${a.namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
    if (registry === undefined) throw fail(new Error(`serviceaccount "${name}" not found`));
    try {
      return await registry.get(a.namespace, name, { resourceVersion: '0' });
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw fail(err);
    }
    const attempts = name === 'default' ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(100 + Math.floor(Math.random() * 100));
      try {
        return await registry.get(a.namespace, name, { resourceVersion: '' });
      } catch (err) {
        if (!isStatusError(err) || err.code !== 404) throw fail(err);
      }
    }
    // kube's plugin gives up with a NotFound of its own, on the singular `serviceaccount`.
    throw fail(new Error(`serviceaccount "${name}" not found`));
  };

  const applies = (a: AdmissionAttributes): boolean =>
    a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === '' && a.object !== undefined;

  return {
    name: 'ServiceAccount',
    operations: ['CREATE'],
    async admit(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[mirrorKey] !== undefined) return;
      pod.spec ??= {};
      // A spec of another type is the schema's to refuse (400/422), after admission.
      if (!isObject(pod.spec)) return;
      const spec = pod.spec;
      const name = podServiceAccount(pod) || 'default';
      spec.serviceAccountName = name;
      const account = await lookup(a, name);
      if (list(spec.imagePullSecrets).length === 0 && list(account.imagePullSecrets).length > 0) {
        spec.imagePullSecrets = list(account.imagePullSecrets).map((s) => ({ name: stringAt(s, 'name') }));
      }
    },
    async validate(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[mirrorKey] !== undefined) {
        if (podServiceAccount(pod) !== '') throw denied(a, 'a mirror pod may not reference service accounts');
        if (usesSecrets(pod)) throw denied(a, 'a mirror pod may not reference secrets');
        if (usesTokenProjection(pod)) throw denied(a, 'a mirror pod may not use ServiceAccountToken volume projections');
        return;
      }
      const name = podServiceAccount(pod);
      if (name === '') throw denied(a, `no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
      const account = await lookup(a, name);
      if (!TRUE_VALUES.has(account.metadata.annotations?.[enforceKey] ?? '')) return;
      const problem = disallowedSecretReference(pod, account);
      if (problem !== undefined) throw denied(a, problem);
    },
  };
}
