/**
 * A streaming watch client for the HTTP tests: opens `GET <path>?watch=true...` on its own connection and
 * parses the newline-delimited events as they arrive, so a test can await each one.
 *
 *   const w = await openWatch(api, '/api/v1/namespaces/ns/configmaps', { resourceVersion: rv });
 *   expect(w.status).toBe(200);
 *   const ev = await w.next();            // waits for the next event
 *   await w.until((e) => e.type === 'DELETED');
 *   w.close();
 *
 * A non-200 answer resolves with `status` and the Status body in `error`.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TestApi } from './helpers.js';

export interface WatchEventJson {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: any;
}

export interface WatchStream {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The Status body of a non-200 answer. */
  readonly error: any;
  /** Every event received so far, in order. */
  readonly events: readonly WatchEventJson[];
  /** The next event not yet returned by next/until (waits up to `timeoutMs`, default 10 s). */
  next(timeoutMs?: number): Promise<WatchEventJson>;
  /** Returns events (via next) until one satisfies `pred`, which is returned. */
  until(pred: (e: WatchEventJson) => boolean, timeoutMs?: number): Promise<WatchEventJson>;
  /** Resolves when the server ended the stream (or the connection closed). */
  readonly ended: Promise<void>;
  /** Stops reading from the socket (the server's writes back up); `resume` reads again. */
  pause(): void;
  resume(): void;
  close(): void;
}

/**
 * Splits what arrived so far into events: returns the events and how many bytes they used (the rest waits
 * for more data). The default reads newline-delimited JSON.
 */
export type WatchParser = (buffered: Buffer) => { events: WatchEventJson[]; consumed: number };

export const jsonLines: WatchParser = (buffered) => {
  const events: WatchEventJson[] = [];
  let consumed = 0;
  let nl: number;
  while ((nl = buffered.indexOf(0x0a, consumed)) >= 0) {
    const line = buffered.subarray(consumed, nl).toString('utf8');
    consumed = nl + 1;
    if (line.trim() !== '') events.push(JSON.parse(line) as WatchEventJson);
  }
  return { events, consumed };
};

export function openWatch(
  api: Pick<TestApi, 'url' | 'ca' | 'token'>,
  path: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
  parse: WatchParser = jsonLines,
): Promise<WatchStream> {
  const url = new URL(path, api.url);
  if (!('watch' in query) && !path.includes('/watch/')) url.searchParams.set('watch', 'true');
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'GET', ca: api.ca, agent: false, headers: { Authorization: `Bearer ${api.token}`, ...headers } }, (res) => {
      const events: WatchEventJson[] = [];
      const waiters: (() => void)[] = [];
      let taken = 0;
      let buffered: Buffer = Buffer.alloc(0);
      let endedFlag = false;
      const wake = (): void => {
        for (const w of waiters.splice(0)) w();
      };
      const ended = new Promise<void>((done) => {
        const finish = (): void => {
          endedFlag = true;
          wake();
          done();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      const next = async (timeoutMs = 10_000): Promise<WatchEventJson> => {
        const deadline = Date.now() + timeoutMs;
        while (taken >= events.length) {
          if (endedFlag) throw new Error(`watch ended after ${events.length} events; no further event`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms (got ${events.length}: ${events.map((e) => e.type).join(',')})`);
          await new Promise<void>((r) => {
            const t = setTimeout(r, left);
            waiters.push(() => {
              clearTimeout(t);
              r();
            });
          });
        }
        return events[taken++]!;
      };
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let error: unknown = text;
          try {
            error = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve(stream(res, error));
        });
        return;
      }
      res.on('data', (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const { events: parsed, consumed } = parse(buffered);
        buffered = buffered.subarray(consumed);
        events.push(...parsed);
        wake();
      });
      function stream(r: IncomingMessage, error: unknown): WatchStream {
        return {
          status: r.statusCode ?? 0,
          headers: r.headers,
          error,
          events,
          next,
          async until(pred, timeoutMs = 10_000) {
            const deadline = Date.now() + timeoutMs;
            for (;;) {
              const e = await next(Math.max(1, deadline - Date.now()));
              if (pred(e)) return e;
            }
          },
          ended,
          pause: () => r.pause(),
          resume: () => r.resume(),
          close: () => {
            req.destroy();
            r.destroy();
          },
        };
      }
      resolve(stream(res, undefined));
    });
    req.on('error', reject);
    req.end();
  });
}
