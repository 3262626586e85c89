/** What the parts of bench part 3 (bench/watch-cache.ts) share: names, the ConfigMaps they write, small helpers. */
export const LIST_NS = 'bench-cache-list';
export const FANOUT_NS = 'bench-cache-fanout';

export const configMap = (name: string, data: Record<string, string>): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }));
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
