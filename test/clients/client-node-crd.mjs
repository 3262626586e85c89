/**
 * CustomResourceDefinitions through @kubernetes/client-node 1.4's ApiextensionsV1Api, as an operator
 * installs its own definition: one operation per run, its results as JSON lines on stdout, exit 0 when done.
 *
 *   node test/clients/client-node-crd.mjs create <kubeconfig> <definition.json>
 *     createCustomResourceDefinition, then a client-node Watch on that definition (fieldSelector
 *     metadata.name, from the created resourceVersion) until Established is True, then
 *     readCustomResourceDefinition (the typed model: conditions' lastTransitionTime as a Date).
 *     Prints {"t":"created","rv","uid"}, {"t":"established","rv"} and
 *     {"t":"read","rv","uid","conditions":[{type,status,reason,time}],"acceptedNames","storedVersions"}.
 *   node test/clients/client-node-crd.mjs delete <kubeconfig> <name>
 *     deleteCustomResourceDefinition; prints {"t":"deleted","kind"}. The answer is the definition itself
 *     (Terminating, held by its cleanup finalizer); client-node reads it as a V1Status, which keeps only
 *     `kind` of it, so the test looks at the definition over HTTP.
 *
 * Any failure prints {"t":"failed","code","msg"} and exits 1.
 */
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';

const [op, kubeconfigPath, arg] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfigPath);
const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const established = (crd) => (crd?.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');

/** Resolves with the definition's resourceVersion once a watch event shows it Established. */
function waitEstablished(name, fromRv) {
  return new Promise((resolve, reject) => {
    let controller;
    let settled = false;
    const finish = (err, rv) => {
      if (settled) return;
      settled = true;
      controller?.abort();
      if (err) reject(err);
      else resolve(rv);
    };
    new k8s.Watch(kc)
      .watch(CRDS, { fieldSelector: `metadata.name=${name}`, resourceVersion: fromRv }, (type, obj) => {
        if ((type === 'ADDED' || type === 'MODIFIED') && established(obj)) finish(null, obj.metadata.resourceVersion);
        if (type === 'ERROR') finish(Object.assign(new Error(obj?.message ?? 'watch error'), { code: obj?.code }));
      }, (err) => finish(err ?? new Error('the watch ended before the definition was Established')))
      .then((c) => {
        controller = c;
        if (settled) c.abort();
      }, (err) => finish(err));
  });
}

try {
  if (op === 'create') {
    const body = JSON.parse(readFileSync(arg, 'utf8'));
    const created = await ext.createCustomResourceDefinition({ body });
    emit({ t: 'created', rv: created.metadata.resourceVersion, uid: created.metadata.uid });
    const rv = await waitEstablished(created.metadata.name, created.metadata.resourceVersion);
    emit({ t: 'established', rv });
    const read = await ext.readCustomResourceDefinition({ name: created.metadata.name });
    emit({
      t: 'read',
      rv: read.metadata.resourceVersion,
      uid: read.metadata.uid,
      conditions: (read.status?.conditions ?? []).map((c) => ({
        type: c.type, status: c.status, reason: c.reason, time: c.lastTransitionTime instanceof Date ? 'Date' : typeof c.lastTransitionTime,
      })),
      acceptedNames: read.status?.acceptedNames,
      storedVersions: read.status?.storedVersions,
    });
  } else if (op === 'delete') {
    const answer = await ext.deleteCustomResourceDefinition({ name: arg });
    emit({ t: 'deleted', kind: answer?.kind ?? null });
  } else {
    throw new Error(`unknown operation ${op}`);
  }
  process.exit(0);
} catch (err) {
  emit({ t: 'failed', code: err?.code ?? err?.statusCode ?? null, msg: String(err?.body ?? err?.message ?? err).slice(0, 2000) });
  process.exit(1);
}
