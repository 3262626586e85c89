/**
 * The namespaces that exist after the first start: `default`, the system namespace and the public one
 * (`platform-system`, `platform-public`, or `kube-*` under k8s.io). Creating one that already exists is
 * fine, so every replica may run this at start-up.
 */
import type { ServedResources } from '../registry/served-resources.js';
import { StatusError } from '../errors/status-error.js';
import type { Naming } from '../naming/naming.js';

export async function bootstrapNamespaces(resources: ServedResources, naming: Naming): Promise<string[]> {
  const namespaces = resources.lookup('', 'v1', 'namespaces');
  if (namespaces === undefined) return [];
  const created: string[] = [];
  for (const name of ['default', naming.systemNamespace, naming.publicNamespace]) {
    try {
      await namespaces.registry.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager: 'platform-apiserver' });
      created.push(name);
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
    }
  }
  return created;
}
