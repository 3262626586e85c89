/**
 * Following a configuration file's content while the server runs, as kube's dynamic file contents do
 * (dynamiccertificates' DynamicFileCAContent, the authentication config's WatchUntil): a watch on the
 * file's DIRECTORY plus a re-read every `intervalMs` (kube: one minute).
 *
 * Why the directory: cert rotation tools and Kubernetes' own volume writer replace a file by renaming a
 * new one over it (or by swapping a `..data` symlink); a watch on the file itself would stay on the old
 * inode and never fire again. Events for the file's name, for a `..`-prefixed name (the symlink swap) or
 * without a name trigger a re-read; anything the events miss (another symlink layout, a watch that failed
 * or is not supported) is caught by the periodic re-read.
 *
 * Contract:
 * - `onContent(text)` is called with content that differs from the last content seen (the initial one at
 *   first), once per distinct content: a consumer that refuses it is not called again for the same bytes,
 *   but is when the file changes again (reverting to an earlier content included);
 * - a failed read (file missing for a moment between a delete and a create, permissions) goes to
 *   `onReadError` and is tried again at the next event or tick; it does not count as content seen;
 * - reads never overlap; events during a read cause one more read after it;
 * - `stop()` ends the watch and the timer; nothing is called after it. The timer does not keep the process
 *   alive.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** kube's FileRefreshDuration and authentication config poll interval. */
export const defaultRefreshIntervalMs = 60_000;

export interface WatchedFileOptions {
  readonly file: string;
  /** The content already in use (read at start-up). */
  readonly initial: string;
  /** New content, different from the last content seen. */
  readonly onContent: (text: string) => void;
  /** A read failed; the file is read again at the next event or tick. */
  readonly onReadError: (err: Error) => void;
  /** Default one minute. */
  readonly intervalMs?: number;
}

export interface WatchedFile {
  /** Reads the file now (as an event would); resolves once that read and its callback are done. */
  check(): Promise<void>;
  stop(): void;
}

export function watchFile(o: WatchedFileOptions): WatchedFile {
  const dir = dirname(o.file);
  const name = basename(o.file);
  let lastSeen = o.initial;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let watcher: FSWatcher | undefined;

  const readOnce = async (): Promise<void> => {
    let text: string;
    try {
      text = await readFile(o.file, 'utf8');
    } catch (err) {
      if (!stopped) o.onReadError(err as Error);
      return;
    }
    if (stopped || text === lastSeen) return;
    lastSeen = text;
    o.onContent(text);
  };

  const check = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await readOnce();
      } while (again && !stopped);
      running = undefined;
    })();
    return running;
  };

  const startWatcher = (): void => {
    if (stopped || watcher !== undefined) return;
    try {
      const w = watch(dir, { persistent: false }, (_event, filename) => {
        const changed = filename === null ? undefined : filename.toString();
        if (changed === undefined || changed === name || changed.startsWith('..')) void check();
      });
      // The directory went away or the watch broke: the periodic re-read goes on and tries again.
      w.on('error', () => {
        w.close();
        if (watcher === w) watcher = undefined;
      });
      watcher = w;
    } catch {
      watcher = undefined;
    }
  };

  startWatcher();
  const timer = setInterval(() => {
    startWatcher();
    void check();
  }, o.intervalMs ?? defaultRefreshIntervalMs);
  timer.unref();

  return {
    check,
    stop() {
      stopped = true;
      clearInterval(timer);
      watcher?.close();
      watcher = undefined;
    },
  };
}
