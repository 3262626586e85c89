/**
 * Runs the stock kubectl on PATH against a server started in this process: asynchronously (the server must
 * keep serving while kubectl waits for it), with a private HOME (kubectl's discovery and OpenAPI caches)
 * and no inherited KUBECONFIG (pass `--kubeconfig`).
 */
import { spawn } from 'node:child_process';

export interface KubectlRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function kubectlAsync(args: readonly string[], home: string): Promise<KubectlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', args, { env: { ...process.env, HOME: home, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
