/**
 * The buffered audit backend over a real rotating file: order, batching, and dropping (never waiting) when
 * the buffer is full. Write failures are tested under a real file-size limit in
 * test/server/audit-full-disk.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { auditMetrics } from '../metrics/audit-metrics.js';
import { eventually, memoryLogger } from '../../test/server/helpers.js';
import { LogBackend } from './log-backend.js';
import { RotatingFile } from './rotating-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-backend-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('LogBackend', () => {
  it('writes every line in order when the buffer has room, many per write', async () => {
    const path = join(dir, 'audit.log');
    const registry = new Registry();
    const backend = new LogBackend({
      output: await RotatingFile.open({ path, maxSizeBytes: 1 << 30, maxBackups: 0, maxAgeDays: 0 }),
      mode: 'blocking', bufferSize: 10_000, batchMaxSize: 1, batchMaxWaitMs: 0,
      metrics: auditMetrics(registry), logger: memoryLogger().logger,
    });
    for (let i = 0; i < 5000; i++) expect(backend.write(`{"i":${i}}`)).toBe(true);
    await backend.flushed();
    await backend.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5000);
    expect(lines.map((l) => JSON.parse(l).i)).toEqual([...Array(5000).keys()]);
  });

  it('writes multi-byte lines, and lines larger than its write buffer, intact across writes', async () => {
    const path = join(dir, 'audit.log');
    const backend = new LogBackend({
      output: await RotatingFile.open({ path, maxSizeBytes: 1 << 30, maxBackups: 0, maxAgeDays: 0 }),
      mode: 'blocking', bufferSize: 10_000, batchMaxSize: 1, batchMaxWaitMs: 0,
      metrics: auditMetrics(new Registry()), logger: memoryLogger().logger,
    });
    const big = `{"big":"${'€'.repeat(100_000)}"}`;
    const sent = ['{"a":"é"}', big, '{"b":"😀"}', big.replace('big', 'again'), '{"c":1}'];
    for (const line of sent.slice(0, 3)) backend.write(line);
    await backend.flushed();
    for (const line of sent.slice(3)) backend.write(line);
    await backend.flushed();
    await backend.close();
    expect(readFileSync(path, 'utf8')).toBe(`${sent.join('\n')}\n`);
  });

  it('batch mode: writes a full batch at once, a partial one after the wait', async () => {
    const path = join(dir, 'audit.log');
    const backend = new LogBackend({
      output: await RotatingFile.open({ path, maxSizeBytes: 1 << 30, maxBackups: 0, maxAgeDays: 0 }),
      mode: 'batch', bufferSize: 100, batchMaxSize: 3, batchMaxWaitMs: 60_000,
      metrics: auditMetrics(new Registry()), logger: memoryLogger().logger,
    });
    const lines = (): string[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
    backend.write('1');
    backend.write('2');
    await new Promise((r) => setImmediate(r));
    expect(lines()).toEqual([]);
    backend.write('3');
    await eventually(async () => lines().length === 3, 'the full batch written', 5000);
    backend.write('4');
    // The partial batch waits (a minute here) until flushed.
    await new Promise((r) => setImmediate(r));
    expect(lines()).toEqual(['1', '2', '3']);
    await backend.flushed();
    expect(lines()).toEqual(['1', '2', '3', '4']);
    await backend.close();
  });

  it('drops what does not fit in the buffer (never waits) and counts it as plugin "buffered"', async () => {
    const path = join(dir, 'audit.log');
    const registry = new Registry();
    const backend = new LogBackend({
      output: await RotatingFile.open({ path, maxSizeBytes: 1 << 30, maxBackups: 0, maxAgeDays: 0 }),
      mode: 'batch', bufferSize: 10, batchMaxSize: 100, batchMaxWaitMs: 50,
      metrics: auditMetrics(registry), logger: memoryLogger().logger,
    });
    const accepted = Array.from({ length: 25 }, (_, i) => backend.write(`{"i":${i}}`));
    expect(accepted.filter((a) => a)).toHaveLength(10);
    expect(backend.healthy).toBe(false);
    await backend.flushed();
    await backend.close();
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(10);
    const errors = await registry.getSingleMetric('apiserver_audit_error_total')!.get();
    expect(errors.values).toEqual([expect.objectContaining({ labels: { plugin: 'buffered' }, value: 15 })]);
  });
});
