/**
 * Linux `perf` over the server process, for what V8's profiler cannot see: every thread (the garbage
 * collector's helpers, the JIT compiler), native code (V8's runtime and builtins, OpenSSL, nghttp2, llhttp,
 * libc) and the kernel. V8's profiler puts native time on the JavaScript frame that called into it (a `write`
 * then looks like 40 µs); perf samples the machine code itself. JavaScript frames are named through the
 * server's `--perf-basic-prof-only-functions` map (/tmp/perf-<pid>.map).
 *
 * `startPerf` returns undefined when perf is not installed or not allowed (kernel.perf_event_paranoid): the
 * profile runs without this table then.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface PerfSession {
  /** Stops recording and returns self time by category, largest first, as shares of all samples. */
  stop(): Promise<{ readonly category: string; readonly share: number }[]>;
}

export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version'], { stdio: 'ignore' }).status === 0;
}

export function startPerf(pid: number, dataFile: string): PerfSession | undefined {
  if (!perfAvailable()) return undefined;
  const child: ChildProcess = spawn('perf', ['record', '-F', '999', '-o', dataFile, '-p', String(pid)], { stdio: 'ignore' });
  return {
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGINT');
      await exited;
      const report = spawnSync('perf', ['report', '-i', dataFile, '--no-children', '--sort', 'sym', '-g', 'none', '-q'], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
      rmSync(dataFile, { force: true });
      rmSync(`${dataFile}.old`, { force: true });
      rmSync(`/tmp/perf-${pid}.map`, { force: true });
      const shares = new Map<string, number>();
      for (const line of (report.stdout ?? '').split('\n')) {
        const m = /^\s*([\d.]+)%\s+\[(.)\]\s+(.*)$/.exec(line);
        if (m === null) continue;
        const c = categoryOf(m[2] === 'k', m[3]!);
        shares.set(c, (shares.get(c) ?? 0) + Number(m[1]) / 100);
      }
      return [...shares].map(([category, share]) => ({ category, share })).sort((a, b) => b.share - a.share);
    },
  };
}

/** The category of one sampled symbol (perf's `[k]` kernel or `[.]` user symbol). */
export function categoryOf(kernel: boolean, sym: string): string {
  if (kernel) return 'kernel (system calls, network stack, page faults)';
  if (sym.startsWith('JS:')) {
    const nm = sym.indexOf('/node_modules/');
    if (nm >= 0) {
      const rest = sym.slice(nm + '/node_modules/'.length).split('/');
      return `JavaScript: ${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
    }
    const ours = /\/dist\/((?:apiserver|storage)\/[^/:]+)/.exec(sym);
    if (ours !== null) return `JavaScript: ${ours[1]!.replace(/\.js$/, '')}`;
    if (sym.includes('node:')) return 'JavaScript: node';
    return 'JavaScript: other';
  }
  if (/Scaveng|Mark(ing|Compact)|Sweep|Evacuat|Heap::|RecordWrite|Remembered|MemoryChunk|Pretenuring/.test(sym)) return 'garbage collector';
  if (/compiler::|Maglev|Turbofan|CompileLazy|Deoptimiz|TranslatedState|Translation/.test(sym)) return 'JIT compiler and deoptimization';
  if (/Json|JSON/.test(sym)) return 'JSON.parse / JSON.stringify';
  if (sym.startsWith('Builtins_')) {
    if (/IC/.test(sym)) return 'V8 builtins: property access (inline caches)';
    if (/Promise|Microtask|Generator|Await|Async/.test(sym)) return 'V8 builtins: promises and async';
    return 'V8 builtins: other';
  }
  if (/ssl|SSL|aes|gcm|ghash|sha|EVP|ossl|crypto::/i.test(sym)) return 'OpenSSL (TLS)';
  if (/nghttp2|Http2/.test(sym)) return 'nghttp2 (HTTP/2 to etcd)';
  if (/llhttp/.test(sym)) return 'llhttp (HTTP parser)';
  if (/malloc|free|memmove|memcpy|memset|_int_|chunk/.test(sym)) return 'libc: allocation and copies';
  return 'V8 and node runtime';
}
