/**
 * The Service allocation repair pass on the embedded store: a cluster IP and a node port no Service holds
 * are freed only once they have stayed unheld for the grace period (so a create in flight keeps what it
 * reserved), and values a stored Service holds are never freed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../../storage/interface.js';
import { openMemoryStore } from '../../../storage/memory/memory-store.js';
import { naming } from '../../naming/naming.js';
import { createGenericRegistry } from '../../registry/generic/generic-registry.js';
import { BitmapAllocator } from '../../registry/kinds/core/service-allocation/bitmap-allocator.js';
import { bitmapFamily } from '../../registry/kinds/core/service-allocation/family-allocators.js';
import { indexOf, parseServiceRange } from '../../registry/kinds/core/service-allocation/ip-range.js';
import { serviceWriteHooks, type ServiceAllocators } from '../../registry/kinds/core/service-allocation/service-allocator.js';
import { services } from '../../registry/kinds/core/service.js';
import { startServiceAllocationRepair, type RepairController } from './repair-controller.js';

let dir: string;
let store: Store & { close(): Promise<void> };
let repair: RepairController | undefined;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'repair-'));
  store = await openMemoryStore({ dataDir: dir });
});
afterEach(async () => {
  await repair?.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it('frees leaked values after the grace period, never held ones', async () => {
  const range = parseServiceRange('10.0.0.0/24')!;
  const family = bitmapFamily(store, '/registry/ranges/serviceips', range);
  const nodePorts = new BitmapAllocator({ store, key: '/registry/ranges/servicenodeports', range: '30000-30099', size: 100, offset: 16 });
  const allocators: ServiceAllocators = { families: [family], nodePorts, nodePortRange: { base: 30000, size: 100 } };
  const registry = createGenericRegistry({ store, strategy: services, naming: naming('platform.io'), writeHooks: serviceWriteHooks(allocators) });

  const held = (await registry.create('default', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'held' }, spec: { type: 'NodePort', ports: [{ port: 80 }] },
  })).object as unknown as { spec: { clusterIP: string; ports: { nodePort: number }[] } };
  // A leak: reserved with no Service (as a crash between the reservation and the write leaves it).
  expect((await family.bitmap.allocate(indexOf(range, '10.0.0.200')!)).ok).toBe(true);
  expect((await nodePorts.allocate(50)).ok).toBe(true);

  let now = 1_000_000;
  const freed: { ips: string[]; nodePorts: number[] }[] = [];
  repair = startServiceAllocationRepair({ services: registry, allocators, intervalMs: 3_600_000, graceMs: 60_000, now: () => now, onFreed: (f) => freed.push(f) });
  await repair.pass();
  // Seen once: within the grace period, nothing is freed.
  expect(await family.inUse()).toEqual(new Map([[held.spec.clusterIP, undefined], ['10.0.0.200', undefined]]));
  now += 30_000;
  await repair.pass();
  expect((await nodePorts.allocated()).length).toBe(2);
  now += 30_000;
  await repair.pass();
  expect([...(await family.inUse()).keys()]).toEqual([held.spec.clusterIP]);
  expect((await nodePorts.allocated()).map((i) => 30000 + i)).toEqual([held.spec.ports[0]!.nodePort]);
  expect(freed).toEqual([{ ips: ['10.0.0.200'], nodePorts: [30050] }]);
});

it('records again what a stored Service holds but the allocator lost', async () => {
  const range = parseServiceRange('10.0.0.0/24')!;
  const family = bitmapFamily(store, '/registry/ranges/serviceips', range);
  const nodePorts = new BitmapAllocator({ store, key: '/registry/ranges/servicenodeports', range: '30000-30099', size: 100, offset: 16 });
  const allocators: ServiceAllocators = { families: [family], nodePorts, nodePortRange: { base: 30000, size: 100 } };
  const registry = createGenericRegistry({ store, strategy: services, naming: naming('platform.io'), writeHooks: serviceWriteHooks(allocators) });
  await registry.create('default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kept' }, spec: { type: 'NodePort', clusterIP: '10.0.0.9', ports: [{ port: 80, nodePort: 30009 }] } });
  // An operator removed the records.
  await store.delete('/registry/ranges/serviceips');
  await store.delete('/registry/ranges/servicenodeports');
  const repairedValues: string[][] = [];
  repair = startServiceAllocationRepair({ services: registry, allocators, intervalMs: 3_600_000, onRepaired: (v) => repairedValues.push(v) });
  await repair.pass();
  expect([...(await family.inUse()).keys()]).toEqual(['10.0.0.9']);
  expect(await nodePorts.allocated()).toEqual([9]);
  expect(repairedValues.flat()).toEqual(['10.0.0.9', '30009']);
});
