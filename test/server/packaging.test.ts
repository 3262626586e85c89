/**
 * The package as it ships (issue 17, packaging hygiene; the Dockerfile's steps without a Docker engine):
 * `tsc -p tsconfig.build.json` into a fresh directory, with package.json, package-lock.json and bin/ beside
 * it, `npm ci --omit=dev` there, and the server started from that directory alone.
 *
 * What it holds the build to:
 * - dist/ has no tests, test helpers or conformance runners, and every module in it is reached from
 *   dist/apiserver/main.js (modules that only declare types emit an empty `export {}` and are allowed);
 * - every package in `dependencies` is imported by dist/ (none unused), and dist/ imports nothing but Node's
 *   built-ins and `dependencies` (a devDependency used at run time would be missing in production);
 * - the production install holds no devDependency, and the server it runs answers /readyz with 200.
 *
 * The build goes to its own directory, not the shared dist/: `tsc` never deletes outputs of files it no
 * longer compiles, so a dist/ that has seen older builds can hold modules today's build would not emit.
 * `npm ci --prefer-offline` installs from npm's cache, which `make deps` (npm ci) has filled; with
 * --ignore-scripts, as the Dockerfile installs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * Modules the build emits that main.js does not reach, with why they may stay. Keep it short: anything
 * else unreached is either a test helper to exclude in tsconfig.build.json or dead code to delete.
 */
const UNREACHED_ALLOWED: Record<string, string> = {};

/** Paths (relative to dist/) that name a test, a test helper or a conformance runner. */
const TEST_ONLY = /(^|\/)(testing|conformance)\/|\.test\.js$|(^|\/)testing(-[^/]*)?\.js$|(^|\/)test-[^/]*\.js$/;

let dir: string;
let child: ChildProcess | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'apiserver-packaging-'));
  const build = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')], {
    cwd: root, encoding: 'utf8', timeout: 120_000,
  });
  if (build.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed: ${build.error?.message ?? ''}${build.stdout}${build.stderr}`);
}, 150_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(base: string): string[] {
  return readdirSync(base, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(base, join(e.parentPath, e.name)));
}

/** Module specifiers a compiled file imports or re-exports, static and `import('literal')`. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** A module whose emitted code is nothing but `export {}` (it only declared types). */
function typeOnly(file: string): boolean {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .trim();
  return code === '' || code === 'export {};';
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

describe('the shipped package', () => {
  it('dist/ holds no test, test helper or conformance runner', () => {
    const dist = join(dir, 'dist');
    const files = filesUnder(dist);
    expect(files).toContain('apiserver/main.js');
    expect(files.filter((f) => TEST_ONLY.test(f))).toEqual([]);
    // Only compiled modules and their source maps.
    expect(files.filter((f) => !/\.js(\.map)?$/.test(f))).toEqual([]);
  });

  it('every module in dist/ is reached from dist/apiserver/main.js', () => {
    const dist = join(dir, 'dist');
    const modules = filesUnder(dist).filter((f) => f.endsWith('.js'));
    const reached = new Set<string>();
    const pending = ['apiserver/main.js'];
    const broken: string[] = [];
    while (pending.length > 0) {
      const module = pending.pop()!;
      if (reached.has(module)) continue;
      reached.add(module);
      for (const specifier of importsOf(join(dist, module))) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(dist, resolve(dist, dirname(module), specifier));
        if (existsSync(join(dist, target))) pending.push(target);
        else broken.push(`${module} -> ${specifier}`);
      }
    }
    expect(broken).toEqual([]);
    const unreached = modules.filter((m) => !reached.has(m) && !typeOnly(join(dist, m)));
    // A module listed here is dead in production: wire it in, delete it, or exclude it as a test helper.
    expect(unreached.sort()).toEqual(Object.keys(UNREACHED_ALLOWED).sort());
  });

  it('dist/ imports every dependency and nothing outside dependencies and Node built-ins', () => {
    const dist = join(dir, 'dist');
    const builtins = new Set(builtinModules);
    const imported = new Set<string>();
    for (const module of filesUnder(dist).filter((f) => f.endsWith('.js'))) {
      for (const specifier of importsOf(join(dist, module))) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) continue;
        imported.add(packageName(specifier));
      }
    }
    const declared = Object.keys(pkg.dependencies);
    expect(declared.filter((d) => !imported.has(d))).toEqual([]);
    expect([...imported].filter((i) => !declared.includes(i)).sort()).toEqual([]);
  });

  it('npm ci --omit=dev installs no devDependency, and the server it runs answers /readyz', async () => {
    cpSync(join(root, 'package.json'), join(dir, 'package.json'));
    cpSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
    cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
    const install = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir, encoding: 'utf8', timeout: 240_000,
    });
    if (install.status !== 0) throw new Error(`npm ci --omit=dev failed: ${install.error?.message ?? ''}${install.stdout}${install.stderr}`);
    // A devDependency that a production dependency also needs (@types/node, by protobufjs) is installed;
    // the lock marks the others `dev`, and those must be absent.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.keys(pkg.devDependencies).filter((d) => lock.packages[`node_modules/${d}`]?.dev === true);
    expect(devOnly).toEqual(expect.arrayContaining(['jest', 'typescript', 'ajv']));
    expect(devOnly.filter((d) => existsSync(join(dir, 'node_modules', d)))).toEqual([]);
    for (const dep of Object.keys(pkg.dependencies)) {
      expect([dep, existsSync(join(dir, 'node_modules', dep, 'package.json'))]).toEqual([dep, true]);
    }

    // As the Dockerfile's ENTRYPOINT runs it: node with the flags of bin/platform-apiserver, from the package directory.
    const dataDir = join(dir, 'data');
    child = spawn(process.execPath, ['--max-semi-space-size=32', 'dist/apiserver/main.js',
      `--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-compaction-interval=0',
      // No load balancer to outwait: exit as soon as SIGTERM has drained.
      '--shutdown-delay-duration=0s'], {
      cwd: dir, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const port = await new Promise<number>((resolvePort, reject) => {
      child!.stdout!.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
        const m = /Serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m !== null) resolvePort(Number(m[1]));
      });
      child!.once('exit', (code) => reject(new Error(`the server exited (${code}) before serving: ${stderr}`)));
    });

    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const readyz = (): Promise<{ status: number; body: string }> => new Promise((res, rej) => {
      request({ host: '127.0.0.1', port, path: '/readyz?verbose', ca, servername: 'localhost' }, (r) => {
        let body = '';
        r.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => res({ status: r.statusCode ?? 0, body }));
      }).on('error', rej).end();
    });
    // "Serving on" is printed once the listener is up; readiness may follow the store's first check.
    let last = await readyz();
    const deadline = Date.now() + 30_000;
    while (last.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      last = await readyz();
    }
    expect(last.status).toBe(200);
    expect(last.body).toContain('readyz check passed');

    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 300_000);

  it('the Dockerfile runs these same steps, and node with the flags of bin/platform-apiserver', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const shebang = readFileSync(join(root, 'bin', 'platform-apiserver'), 'utf8').split('\n')[0]!;
    const nodeFlags = shebang.replace(/^#!\/usr\/bin\/env -S node\s*/, '').split(/\s+/).filter((f) => f !== '');
    expect(nodeFlags).toContain('--max-semi-space-size=32');
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile);
    expect(entrypoint).not.toBeNull();
    expect(JSON.parse(entrypoint![1]!)).toEqual(['node', ...nodeFlags, 'dist/apiserver/main.js']);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-slim$/m);
    expect(dockerfile).toMatch(/^RUN npx tsc -p tsconfig\.build\.json$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev --ignore-scripts /m);
    expect(dockerfile).toMatch(/^EXPOSE 6443$/m);
    // A numeric user and group other than root, as a pod's runAsNonRoot can verify.
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    expect(user).not.toBeNull();
    expect(Number(user![1])).toBeGreaterThan(0);
    expect(Number(user![2])).toBeGreaterThan(0);
    // Everything the Dockerfile copies from the build context exists and is let through by .dockerignore.
    const allowed = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')
      .filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) {
      expect([source, existsSync(join(root, source)), allowed.includes(source)]).toEqual([source, true, true]);
    }
  });
});
