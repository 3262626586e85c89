/**
 * Stock kubectl (the dispatcher on PATH) against the load balancer, each invocation recorded as a history
 * `Command`: a command that fails is tried again (at most `attempts` times, the way a user or a script
 * retries), and every try is kept with its time and error for the checker's rule "fails at most once
 * during an unplanned fault, never otherwise".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, CommandAttempt } from '../../history/history.js';

export interface KubectlResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class Kubectl {
  readonly commands: Command[] = [];
  private readonly home = mkdtempSync(join(tmpdir(), 'chaos-kubectl-home-'));

  constructor(private readonly kubeconfig: string) {}

  /** One invocation, not recorded. */
  once(args: readonly string[], stdin = ''): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const proc = spawn('kubectl', ['--kubeconfig', this.kubeconfig, '--request-timeout=20s', ...args], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, LANG: 'C' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      proc.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
      proc.stderr.setEncoding('utf8').on('data', (c: string) => { err += c; });
      proc.once('error', reject);
      proc.once('close', (status) => resolve({ status, stdout: out, stderr: err }));
      proc.stdin.end(stdin);
    });
  }

  /** Runs until it succeeds or `attempts` tries failed; records every try; returns the last result. */
  async run(args: readonly string[], options: { stdin?: string; attempts?: number } = {}): Promise<KubectlResult> {
    const attempts: CommandAttempt[] = [];
    this.commands.push({ id: `kubectl ${args.join(' ')}`, attempts });
    let last: KubectlResult | undefined;
    for (let i = 0; i < (options.attempts ?? 3); i++) {
      const start = Date.now();
      last = await this.once(args, options.stdin ?? '');
      const ok = last.status === 0;
      attempts.push(ok ? { start, time: Date.now(), ok } : { start, time: Date.now(), ok, error: last.stderr.trim().split('\n').at(-1) ?? `exit ${last.status}` });
      if (ok) break;
    }
    return last!;
  }

  /** Like `run`, but throws with kubectl's stderr unless it finally succeeded. */
  async ok(args: readonly string[], stdin?: string): Promise<string> {
    const r = await this.run(args, stdin === undefined ? {} : { stdin });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  }

  remove(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
