/**
 * A @kubernetes/client-node 1.4 informer on the ConfigMaps of one namespace, as an application runs it:
 * `makeInformer` with `listNamespacedConfigMap`, restarted after an error (the informer stops on any
 * error but a 410). It prints what it does as JSON lines (protocol: test/clients/client-harness.ts).
 *
 *   node test/clients/client-node-informer.mjs <kubeconfig> <namespace>
 *
 * ESM only (the package is "type": "module"), so it runs as a plain node process, not under jest.
 */
import * as k8s from '@kubernetes/client-node';
import { createInterface } from 'node:readline';

const [kubeconfigPath, namespace] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfigPath);
const core = kc.makeApiClient(k8s.CoreV1Api);
const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

const list = async () => {
  const l = await core.listNamespacedConfigMap({ namespace });
  emit({ t: 'list', rv: l.metadata?.resourceVersion, n: l.items.length });
  return l;
};
const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, list);
const line = (t) => (o) => emit({ t, name: o.metadata.name, rv: o.metadata.resourceVersion, data: o.data ?? {} });
informer.on('add', line('ADDED'));
informer.on('update', line('MODIFIED'));
informer.on('delete', line('DELETED'));
informer.on('connect', () => emit({ t: 'watch', rv: informer.latestResourceVersion() }));
let stopping = false;
informer.on('error', (err) => {
  emit({ t: 'error', code: err?.statusCode ?? err?.code ?? null, msg: String(err?.message ?? err) });
  // The usual application pattern (client-node's own examples): start again after a short pause; the
  // informer keeps its resourceVersion, so it re-watches from the last one it saw.
  if (!stopping) setTimeout(() => informer.start(), 100);
});

createInterface({ input: process.stdin })
  .on('line', (cmd) => {
    if (cmd.trim() !== 'dump') return;
    const items = informer.list(namespace).map((o) => ({ name: o.metadata.name, rv: o.metadata.resourceVersion, data: o.data ?? {} }));
    emit({ t: 'dump', rv: informer.latestResourceVersion(), items });
  })
  .on('close', async () => {
    stopping = true;
    await informer.stop();
    process.exit(0);
  });

await informer.start();
