/** The bare Koa handler of bench part 3 (bench/bare-koa.ts) as a child process: the transport floor. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

/** The bare Koa handler as a child process. */
export interface BareServer {
  readonly url: string;
  readonly caPem: string;
  stop(): Promise<void>;
}

export async function startBareKoa(): Promise<BareServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'bare-koa.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  process.once('exit', () => child.kill('SIGKILL'));
  const first = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error('bare Koa server did not start in 30 s')), 30_000);
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        res(out.slice(0, nl));
      }
    });
    child.once('exit', (code) => rej(new Error(`bare Koa server exited (${code})`)));
  });
  const { port, caFile } = JSON.parse(first) as { port: number; caFile: string };
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: readFileSync(caFile, 'utf8'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

