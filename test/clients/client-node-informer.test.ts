/**
 * Issue 4 acceptance, real client: a `@kubernetes/client-node` 1.4 informer (`makeInformer` over
 * `listNamespacedConfigMap`, restarted after errors as applications do; client-node-informer.mjs, run with
 * node because the package is ESM only) on the ConfigMaps of a namespace, against a real server on each
 * backend. The scenario (watch-scenario.ts): every event of 1,000 objects created, updated and deleted
 * concurrently; then a compaction while its watch is dropped: one 410, one re-list (client-node 1.4 re-lists
 * without backoff, so the server must not hand out a list resourceVersion the next watch refuses), and
 * convergence to the server's list after further writes.
 */
import { join } from 'node:path';
import { backends, describeBackends, stopBackends } from '../http/helpers.js';
import { ClientProcess } from './client-harness.js';
import { relistScenario } from './watch-scenario.js';

const script = join(__dirname, 'client-node-informer.mjs');
const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  it('sees every event of 1,000 concurrent objects; after a compaction while its watch is down it re-lists once and converges', async () => {
    await relistScenario(b, 'client-node 1.4 informer', (kubeconfig, ns) => new ClientProcess(process.execPath, [script, kubeconfig, ns]));
  });
});
