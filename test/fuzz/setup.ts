/**
 * What exists before the fuzz starts: the fuzz namespaces, and a CustomResourceDefinition (the kinds
 * fixture's `widgets.suite.example.com`) so custom resources are among the served kinds discovery lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { FuzzClient } from './client.js';
import { FUZZ_NAMESPACES } from './generator.js';

async function send(client: FuzzClient, token: string, method: string, path: string, body?: unknown) {
  const res = await client.send({
    method, path, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
  }, 30_000);
  return { status: res.status, json: (): any => JSON.parse(res.body.toString('utf8')), text: res.body.toString('utf8') };
}

export async function prepareServer(client: FuzzClient, token: string, domain = 'platform.io'): Promise<void> {
  for (const name of FUZZ_NAMESPACES) {
    const res = await send(client, token, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status} ${res.text}`);
  }
  const fixture = parseYaml(readFileSync(join(__dirname, '..', 'fixtures', 'kinds', 'apiextensions.customresourcedefinitions.yaml'), 'utf8')) as { name: string; object: Record<string, any> };
  const crd: Record<string, any> = { apiVersion: `apiextensions.${domain}/v1`, kind: 'CustomResourceDefinition', metadata: { name: fixture.name, labels: { fuzz: 'true' } }, ...fixture.object };
  crd.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
  crd.spec.versions[0].schema.openAPIV3Schema.properties = {
    spec: { type: 'object', properties: { size: { type: 'integer' }, replicas: { type: 'integer' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  };
  const res = await send(client, token, 'POST', `/apis/apiextensions.${domain}/v1/customresourcedefinitions`, crd);
  if (res.status !== 201) throw new Error(`crd: ${res.status} ${res.text}`);
  // Served once Established: its group version answers discovery.
  const { group } = crd.spec;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const d = await send(client, token, 'GET', `/apis/${group}/v1`);
    if (d.status === 200) return;
    if (Date.now() > deadline) throw new Error(`crd not served: ${d.status} ${d.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
