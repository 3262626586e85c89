import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchFile, type WatchedFile } from './watched-file.js';

/** Long enough that only the directory watch (or an explicit check) can deliver within a test. */
const noTick = 3_600_000;

let dir: string;
let file: string;
let watched: WatchedFile | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watched-file-'));
  file = join(dir, 'ca.crt');
  writeFileSync(file, 'one');
});
afterEach(() => {
  watched?.stop();
  watched = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Collects contents and read errors; `next()` resolves with the next content, failing after a deadline. */
function collector() {
  const contents: string[] = [];
  const errors: string[] = [];
  let waiter: ((text: string) => void) | undefined;
  return {
    contents,
    errors,
    onContent: (text: string) => {
      contents.push(text);
      waiter?.(text);
      waiter = undefined;
    },
    onReadError: (err: Error) => void errors.push((err as NodeJS.ErrnoException).code ?? err.message),
    next: (what: string) => new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no content event for ${what} within 10 s`)), 10_000);
      waiter = (text) => {
        clearTimeout(timer);
        resolve(text);
      };
    }),
  };
}

test('an in-place write is seen through the directory watch, without the periodic re-read', async () => {
  const c = collector();
  watched = watchFile({ file, initial: 'one', onContent: c.onContent, onReadError: c.onReadError, intervalMs: noTick });
  const seen = c.next('an in-place write');
  writeFileSync(file, 'two');
  expect(await seen).toBe('two');
});

test('a rename over the file (how rotation tools replace it) is seen, and so is the next one', async () => {
  const c = collector();
  watched = watchFile({ file, initial: 'one', onContent: c.onContent, onReadError: c.onReadError, intervalMs: noTick });
  for (const text of ['two', 'three']) {
    const seen = c.next(`rename of ${text}`);
    writeFileSync(join(dir, 'ca.crt.tmp'), text);
    renameSync(join(dir, 'ca.crt.tmp'), file);
    expect(await seen).toBe(text);
  }
  expect(c.contents).toEqual(['two', 'three']);
});

test('the same content again is no change; a refused content is not handed twice, but a revert is', async () => {
  const c = collector();
  watched = watchFile({ file, initial: 'one', onContent: c.onContent, onReadError: c.onReadError, intervalMs: noTick });
  writeFileSync(file, 'one');
  await watched.check();
  expect(c.contents).toEqual([]);
  writeFileSync(file, 'bad');
  await watched.check();
  await watched.check();
  expect(c.contents).toEqual(['bad']);
  writeFileSync(file, 'one');
  await watched.check();
  expect(c.contents).toEqual(['bad', 'one']);
});

test('a missing file is a read error, tried again; once back, its content is handed on', async () => {
  const c = collector();
  watched = watchFile({ file, initial: 'one', onContent: c.onContent, onReadError: c.onReadError, intervalMs: noTick });
  unlinkSync(file);
  await watched.check();
  expect(c.errors).toContain('ENOENT');
  expect(c.contents).toEqual([]);
  writeFileSync(file, 'two');
  await watched.check();
  expect(c.contents).toEqual(['two']);
});

test('the periodic re-read finds content no event announced', async () => {
  // Told a content the file does not hold, with no write afterwards: no event comes, only the tick reads.
  const c = collector();
  watched = watchFile({ file, initial: 'stale', onContent: c.onContent, onReadError: c.onReadError, intervalMs: 50 });
  expect(await c.next('the periodic re-read')).toBe('one');
});

test('nothing is handed on after stop', async () => {
  const c = collector();
  const w = watchFile({ file, initial: 'one', onContent: c.onContent, onReadError: c.onReadError, intervalMs: 20 });
  w.stop();
  writeFileSync(file, 'two');
  await w.check();
  // Several ticks' worth of time would have passed for a live timer by the time a fresh watch sees it.
  const probe = collector();
  watched = watchFile({ file, initial: 'one', onContent: probe.onContent, onReadError: probe.onReadError, intervalMs: 20 });
  expect(await probe.next('a live watch')).toBe('two');
  expect(c.contents).toEqual([]);
});
