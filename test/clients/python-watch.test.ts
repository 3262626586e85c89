/**
 * Issue 4 acceptance, real client: Debian's python3-kubernetes (`kubernetes.watch.Watch().stream(
 * v1.list_namespaced_config_map, ...)` in a list-then-watch loop that re-lists on 410; python-watch.py)
 * on the ConfigMaps of a namespace, against a real server on each backend, configured from the server's
 * generated admin.kubeconfig (its server URL pointed at a TCP proxy that can drop connections). The
 * scenario (watch-scenario.ts): every event of 1,000 objects created, updated and deleted concurrently; then
 * a compaction while its watch is dropped: one 410, one re-list, and convergence to the server's list after
 * further writes.
 *
 * Debian's package installs for Debian's python (/usr/bin/python3, `make deps` installs it); a python3
 * earlier on PATH (pyenv, a venv) does not see it. `PYTHON3` overrides.
 */
import { join } from 'node:path';
import { backends, describeBackends, stopBackends } from '../http/helpers.js';
import { ClientProcess } from './client-harness.js';
import { relistScenario } from './watch-scenario.js';

const python = process.env.PYTHON3 ?? '/usr/bin/python3';
const script = join(__dirname, 'python-watch.py');
const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  it('sees every event of 1,000 concurrent objects; after a compaction while its watch is down it re-lists once and converges', async () => {
    await relistScenario(b, 'python3-kubernetes watch', (kubeconfig, ns) => new ClientProcess(python, ['-u', script, kubeconfig, ns]));
  });
});
