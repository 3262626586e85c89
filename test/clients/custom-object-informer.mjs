/**
 * A @kubernetes/client-node 1.4 informer on a custom resource, as an operator runs one: `makeInformer` over
 * `CustomObjectsApi.listNamespacedCustomObject` (or `listClusterCustomObject` when the namespace is `-`).
 * It prints what it does as JSON lines (protocol: test/clients/client-harness.ts), with these differences:
 * - names are `<namespace>/<name>` (a cluster-wide informer holds several namespaces);
 * - `data` is `{ generation, spec, status }`, spec and status as JSON with sorted keys;
 * - a failed list also prints `{"t":"list-error","code"}` (before the informer's own error line), so a
 *   404 on the list can be told from a 404 on the watch.
 * After an error the informer is started again 100 ms later, as client-node's examples do, EXCEPT after a
 * 404: the resource is no longer served (its definition was deleted), and restarting would only spin. It
 * then stays stopped until `start` arrives on stdin. `dump` on stdin prints the cache; closing stdin stops.
 *
 *   node test/clients/custom-object-informer.mjs <kubeconfig> <group> <version> <plural> <namespace|->
 */
import * as k8s from '@kubernetes/client-node';
import { createInterface } from 'node:readline';

const [kubeconfigPath, group, version, plural, nsArg] = process.argv.slice(2);
const namespace = nsArg === '-' ? undefined : nsArg;
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfigPath);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** JSON with object keys sorted: the same object reads the same from a list and from a watch event. */
const canonical = (v) => JSON.stringify(v ?? null, (_k, x) => (x !== null && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]))
  : x));
const key = (o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const dataOf = (o) => ({ generation: String(o.metadata.generation ?? ''), spec: canonical(o.spec), status: canonical(o.status) });

const list = async () => {
  try {
    const l = namespace === undefined
      ? await custom.listClusterCustomObject({ group, version, plural })
      : await custom.listNamespacedCustomObject({ group, version, namespace, plural });
    emit({ t: 'list', rv: l.metadata?.resourceVersion, n: l.items.length });
    return l;
  } catch (err) {
    emit({ t: 'list-error', code: err?.code ?? err?.statusCode ?? null, msg: String(err?.message ?? err).slice(0, 300) });
    throw err;
  }
};
const path = namespace === undefined ? `/apis/${group}/${version}/${plural}` : `/apis/${group}/${version}/namespaces/${namespace}/${plural}`;
const informer = k8s.makeInformer(kc, path, list);
const line = (t) => (o) => emit({ t, name: key(o), rv: o.metadata.resourceVersion, data: dataOf(o) });
informer.on('add', line('ADDED'));
informer.on('update', line('MODIFIED'));
informer.on('delete', line('DELETED'));
informer.on('connect', () => emit({ t: 'watch', rv: informer.latestResourceVersion() }));
let stopping = false;
informer.on('error', (err) => {
  const code = err?.statusCode ?? err?.code ?? null;
  emit({ t: 'error', code, msg: String(err?.message ?? err).slice(0, 300) });
  if (!stopping && code !== 404) setTimeout(() => informer.start(), 100);
});

createInterface({ input: process.stdin })
  .on('line', (cmd) => {
    const c = cmd.trim();
    if (c === 'start') {
      void informer.start();
    } else if (c === 'dump') {
      const items = informer.list(namespace).map((o) => ({ name: key(o), rv: o.metadata.resourceVersion, data: dataOf(o) }));
      emit({ t: 'dump', rv: informer.latestResourceVersion(), items });
    }
  })
  .on('close', async () => {
    stopping = true;
    await informer.stop();
    process.exit(0);
  });

await informer.start();
