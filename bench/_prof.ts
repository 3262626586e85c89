import { benchClient } from './http-client.js';
import { measure } from './measure.js';
import { startServerProcess } from './server-process.js';
const server = await startServerProcess({ mode: 'dist', nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/cpuprof'], args: (process.env.SARGS ?? '').split(' ').filter(Boolean) });
try {
  const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
  await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'l' } })));
  const v = 'x'.repeat(1024);
  const body = (i: number) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `item-${i}` }, data: { value: v } }));
  const m = await measure(30000, 64, (i) => client.call('POST', `/api/v1/namespaces/l/configmaps`, 201, body(i)));
  console.log('ops/s', m.opsPerSecond);
  client.close();
} finally { await server.stop(); }
