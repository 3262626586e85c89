/**
 * End to end, issue 9's acceptance for the imperative `kubectl create` commands: the BUILT server
 * (`bin/platform-apiserver`, embedded store) driven by three stock kubectl releases, in both group-domain
 * modes (one server per mode for the whole file):
 *
 * - `kubectl` on PATH, the dispatcher, which runs kubectl 1.32 for this server. 1.32 and 1.33 send PROTOBUF
 *   bodies for `create namespace|configmap|secret|serviceaccount` and ask for protobuf back
 *   (`Accept: application/vnd.kubernetes.protobuf,application/json`), so kubectl's own Go decoder reads the
 *   server's protobuf objects and protobuf Status errors;
 * - `kubectl.1.27` (JSON both ways) and `kubectl.1.33`, from the dispatcher's directory.
 *
 * Every command's effect is read back with `get -o json` (data, binaryData, type, labels compared), and each
 * also runs with `--dry-run=server`: it succeeds, prints the object, and a `get` afterwards is NotFound.
 * `-v=9` logs show the wire: request and response Content-Type, the `k8s\0` envelope's magic, the status.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBuild, kubectlMinor, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

interface Client {
  /** Short, DNS-safe, part of every object name the client creates (names stay unique per server). */
  readonly tag: string;
  readonly label: string;
  /** The binary; undefined is `kubectl` from PATH (the dispatcher). Resolved lazily: a missing one fails its tests. */
  readonly binary: () => string | undefined;
  /** Whether this release sends protobuf bodies for typed creates (1.32 and later). */
  readonly protobuf: boolean;
}

const clients: readonly Client[] = [
  { tag: 'v132', label: 'kubectl 1.32 (the dispatcher on PATH)', binary: () => undefined, protobuf: true },
  { tag: 'v127', label: 'kubectl 1.27', binary: () => kubectlMinor(27), protobuf: false },
  { tag: 'v133', label: 'kubectl 1.33', binary: () => kubectlMinor(33), protobuf: true },
];

const domains = ['platform.io', 'k8s.io'] as const;

/** Files shared by every server: a directory, binary content, a TLS pair (made once by openssl). */
interface Fixtures {
  readonly root: string;
  /** `--from-file=<dir>`: two text files and one that is not UTF-8 (binaryData for a ConfigMap). */
  readonly dir: string;
  readonly dirText: Readonly<Record<string, string>>;
  readonly dirBinaryName: string;
  readonly dirBinary: Buffer;
  readonly textFile: string;
  readonly textContent: string;
  /** Every byte value, twice, and an invalid UTF-8 sequence: must survive byte for byte. */
  readonly binFile: string;
  readonly binContent: Buffer;
  readonly cert: string;
  readonly key: string;
}

function makeFixtures(): Fixtures {
  const root = mkdtempSync(join(tmpdir(), 'e2e-kubectl-create-'));
  const dir = join(root, 'conf.d');
  mkdirSync(dir);
  const dirText = { 'app.properties': 'mode=production\nretries=3\n', 'notes.txt': 'héllo wörld\n' };
  for (const [name, content] of Object.entries(dirText)) writeFileSync(join(dir, name), content);
  const dirBinaryName = 'logo.bin';
  const dirBinary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0xc3]);
  writeFileSync(join(dir, dirBinaryName), dirBinary);
  const textFile = join(root, 'settings.yaml');
  const textContent = 'server:\n  port: 8080\n  tags: [a, b]\n';
  writeFileSync(textFile, textContent);
  const binFile = join(root, 'blob.bin');
  const bytes = Array.from({ length: 256 }, (_, i) => i);
  const binContent = Buffer.from([...bytes, ...bytes.reverse(), 0xc0, 0x80, 0xed, 0xa0, 0x80]);
  writeFileSync(binFile, binContent);
  const cert = join(root, 'tls.crt');
  const key = join(root, 'tls.key');
  const openssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', key, '-out', cert, '-subj', '/CN=e2e.example', '-days', '1'], { encoding: 'utf8' });
  if (openssl.status !== 0) throw new Error(`openssl failed: ${openssl.stderr}`);
  return { root, dir, dirText, dirBinaryName, dirBinary, textFile, textContent, binFile, binContent, cert, key };
}

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** One request and its response as kubectl -v=9 logs them (1.27, 1.32 and 1.33 log in different shapes). */
interface Exchange {
  readonly requestContentType: string | undefined;
  /** The log from the last "Request Body" before the request: a hex dump (protobuf) or the JSON text. */
  readonly requestBody: string;
  readonly status: string;
  readonly responseContentType: string;
  /** The log from the "Response Body" after the response headers. */
  readonly responseBody: string;
}

/** Finds the first `method` request whose URL path is `path` in a -v=9 log. */
function exchange(log: string, method: string, path: string): Exchange {
  const lines = log.split('\n');
  const i = lines.findIndex((l) => l.includes(`curl -v -X${method} `) && l.includes(`${path}?`));
  if (i < 0) throw new Error(`no ${method} ${path} in the log:\n${log}`);
  const requestContentType = lines[i]!.match(/-H "Content-Type: ([^"]+)"/)?.[1];
  const before = lines.slice(0, i).join('\n');
  const requestBody = before.slice(before.lastIndexOf('Request Body'));
  const statusRe = new RegExp(`(?:${method} \\S+${path}\\S* (\\d{3} [A-Za-z ]+?) in \\d+ milliseconds|verb="${method}" url="[^"]*${path}[^"]*" status="(\\d{3} [^"]+)")`);
  const s = lines.findIndex((l, n) => n > i && statusRe.test(l));
  if (s < 0) throw new Error(`no response to ${method} ${path} in the log:\n${log}`);
  const m = lines[s]!.match(statusRe)!;
  const ct = lines.slice(s + 1).map((l) => l.match(/^\s*(?:I\S+\s+\S+\s+\d+\s+round_trippers\.go:\d+\]\s+)?Content-Type: (\S+)\s*$/)).find((x) => x);
  const after = lines.slice(s).join('\n');
  return {
    requestContentType,
    requestBody,
    status: m[1] ?? m[2]!,
    responseContentType: ct?.[1] ?? '',
    responseBody: after.slice(after.indexOf('Response Body')),
  };
}

/** The start of kubectl's hex dump of a body that begins with the protobuf envelope's magic `k8s\0`. */
const PROTOBUF_DUMP = /Body"? body=<\n\s*00000000 {2}6b 38 73 00 /;

let fixtures: Fixtures;
beforeAll(() => {
  requireBuild();
  fixtures = makeFixtures();
}, 120_000);
afterAll(() => {
  if (fixtures) rmSync(fixtures.root, { recursive: true, force: true });
});

for (const domain of domains) {
  const nameLabel = domain === 'k8s.io' ? 'kubernetes.io/metadata.name' : 'platform.io/metadata.name';

  describe(`kubectl create against bin/platform-apiserver (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    beforeAll(async () => {
      server = await startApiserver(domain === 'k8s.io' ? ['--group-domain=k8s.io'] : []);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    for (const client of clients) {
      describe(client.label, () => {
        const ns = `create-${client.tag}`;
        const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args, { binary: client.binary() });

        /**
         * `create <what> <name> <args>`: prints `<kind>/<name> created`, went over the client's wire format both
         * ways (protobuf for 1.32 and later), and `check` holds for the object read back. Then `<name>-dry` with `--dry-run=server -o json`: `check` holds for the printed object, which
         * has a uid but no resourceVersion, and a get is NotFound.
         */
        async function createChecked(opts: {
          readonly what: readonly string[];
          readonly kind: string;
          readonly resource: string;
          readonly name: string;
          readonly args: readonly string[];
          readonly namespaced?: boolean;
          readonly check: (obj: any, name: string) => void;
        }): Promise<void> {
          const nsArgs = opts.namespaced === false ? [] : ['-n', ns];
          const created = await kubectl('create', ...opts.what, opts.name, ...nsArgs, ...opts.args, '-v=9');
          expect(created.stdout).toBe(`${opts.kind}/${opts.name} created\n`);
          const post = exchange(created.stderr, 'POST', opts.namespaced === false ? `/api/v1/${opts.resource}` : `/api/v1/namespaces/${ns}/${opts.resource}`);
          expect(post.status).toBe('201 Created');
          expect([post.requestContentType, post.responseContentType]).toEqual(client.protobuf ? [PROTOBUF, PROTOBUF] : ['application/json', 'application/json']);
          const obj = JSON.parse(ok(await kubectl('get', opts.resource, opts.name, ...nsArgs, '-o', 'json')));
          expect(obj.metadata.resourceVersion).toMatch(/^\d+$/);
          opts.check(obj, opts.name);

          const dryName = `${opts.name}-dry`;
          const dry = await kubectl('create', ...opts.what, dryName, ...nsArgs, ...opts.args, '--dry-run=server', '-o', 'json');
          expect(dry.stderr).toBe('');
          expect(dry.status).toBe(0);
          const printed = JSON.parse(dry.stdout);
          expect(printed.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
          expect(printed.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
          expect(printed.metadata).not.toHaveProperty('resourceVersion');
          opts.check(printed, dryName);
          const gone = await kubectl('get', opts.resource, dryName, ...nsArgs);
          expect(gone.status).toBe(1);
          expect(gone.stdout).toBe('');
          expect(gone.stderr).toBe(`Error from server (NotFound): ${opts.resource} "${dryName}" not found\n`);
        }

        /** The fields every created object of a namespaced kind shares. */
        const meta = (obj: any, name: string, kind: string): void => {
          expect(obj).toMatchObject({ apiVersion: 'v1', kind, metadata: { name, namespace: ns } });
        };

        it('create namespace (labelled with its name, Active, the kubernetes finalizer)', async () => {
          await createChecked({
            what: ['namespace'], kind: 'namespace', resource: 'namespaces', name: ns, args: [], namespaced: false,
            check: (obj, name) => {
              expect(obj).toMatchObject({ apiVersion: 'v1', kind: 'Namespace', spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
              expect(obj.metadata.name).toBe(name);
              expect(obj.metadata.labels).toEqual({ [nameLabel]: name });
            },
          });
        });

        it('create configmap --from-literal', async () => {
          await createChecked({
            what: ['configmap'], kind: 'configmap', resource: 'configmaps', name: `lit-${client.tag}`,
            args: ['--from-literal=color=blue', '--from-literal=greeting=hello world', '--from-literal=empty='],
            check: (obj, name) => {
              meta(obj, name, 'ConfigMap');
              expect(obj.data).toEqual({ color: 'blue', greeting: 'hello world', empty: '' });
              expect(obj).not.toHaveProperty('binaryData');
            },
          });
        });

        it('create configmap --from-file of a directory and of a file with its own key (non-UTF-8 content in binaryData)', async () => {
          await createChecked({
            what: ['configmap'], kind: 'configmap', resource: 'configmaps', name: `files-${client.tag}`,
            args: [`--from-file=${fixtures.dir}`, `--from-file=custom.yaml=${fixtures.textFile}`],
            check: (obj, name) => {
              meta(obj, name, 'ConfigMap');
              expect(obj.data).toEqual({ ...fixtures.dirText, 'custom.yaml': fixtures.textContent });
              expect(obj.binaryData).toEqual({ [fixtures.dirBinaryName]: b64(fixtures.dirBinary) });
            },
          });
        });

        it('create secret generic --from-literal (Opaque)', async () => {
          await createChecked({
            what: ['secret', 'generic'], kind: 'secret', resource: 'secrets', name: `lit-${client.tag}`,
            args: ['--from-literal=username=admin', '--from-literal=password=s3cr=t!'],
            check: (obj, name) => {
              meta(obj, name, 'Secret');
              expect(obj.type).toBe('Opaque');
              expect(obj.data).toEqual({ username: b64('admin'), password: b64('s3cr=t!') });
              expect(obj).not.toHaveProperty('stringData');
            },
          });
        });

        it('create secret generic --from-file with --type: binary content survives byte for byte', async () => {
          await createChecked({
            what: ['secret', 'generic'], kind: 'secret', resource: 'secrets', name: `files-${client.tag}`,
            args: [`--from-file=${fixtures.binFile}`, `--from-file=${fixtures.textFile}`, `--from-file=${fixtures.dir}`, '--type=example.com/bundle'],
            check: (obj, name) => {
              meta(obj, name, 'Secret');
              expect(obj.type).toBe('example.com/bundle');
              expect(Object.keys(obj.data).sort()).toEqual(['app.properties', 'blob.bin', 'logo.bin', 'notes.txt', 'settings.yaml']);
              expect(Buffer.from(obj.data['blob.bin'], 'base64').equals(fixtures.binContent)).toBe(true);
              expect(Buffer.from(obj.data['logo.bin'], 'base64').equals(fixtures.dirBinary)).toBe(true);
              expect(Buffer.from(obj.data['settings.yaml'], 'base64').toString('utf8')).toBe(fixtures.textContent);
              expect(Buffer.from(obj.data['notes.txt'], 'base64').toString('utf8')).toBe(fixtures.dirText['notes.txt']);
            },
          });
        });

        it('create secret tls (a certificate and key made by openssl)', async () => {
          await createChecked({
            what: ['secret', 'tls'], kind: 'secret', resource: 'secrets', name: `tls-${client.tag}`,
            args: [`--cert=${fixtures.cert}`, `--key=${fixtures.key}`],
            check: (obj, name) => {
              meta(obj, name, 'Secret');
              expect(obj.type).toBe('kubernetes.io/tls');
              expect(obj.data).toEqual({ 'tls.crt': b64(readFileSync(fixtures.cert)), 'tls.key': b64(readFileSync(fixtures.key)) });
            },
          });
        });

        it('create secret docker-registry (a .dockerconfigjson with the auth pair)', async () => {
          await createChecked({
            what: ['secret', 'docker-registry'], kind: 'secret', resource: 'secrets', name: `pull-${client.tag}`,
            args: ['--docker-server=registry.example:5000', '--docker-username=robot', '--docker-password=p@ss:word', '--docker-email=robot@example.com'],
            check: (obj, name) => {
              meta(obj, name, 'Secret');
              expect(obj.type).toBe('kubernetes.io/dockerconfigjson');
              expect(Object.keys(obj.data)).toEqual(['.dockerconfigjson']);
              expect(JSON.parse(Buffer.from(obj.data['.dockerconfigjson'], 'base64').toString('utf8'))).toEqual({
                auths: { 'registry.example:5000': { username: 'robot', password: 'p@ss:word', email: 'robot@example.com', auth: b64('robot:p@ss:word') } },
              });
            },
          });
        });

        it('create serviceaccount; --dry-run=server without -o says so', async () => {
          await createChecked({
            what: ['serviceaccount'], kind: 'serviceaccount', resource: 'serviceaccounts', name: `sa-${client.tag}`, args: [],
            check: (obj, name) => {
              meta(obj, name, 'ServiceAccount');
              expect(obj).not.toHaveProperty('secrets');
            },
          });
          const name = `sa-${client.tag}-quiet`;
          expect(ok(await kubectl('create', 'serviceaccount', name, '-n', ns, '--dry-run=server'))).toBe(`serviceaccount/${name} created (server dry run)\n`);
          expect((await kubectl('get', 'serviceaccount', name, '-n', ns)).stderr).toBe(`Error from server (NotFound): serviceaccounts "${name}" not found\n`);
        });

        it(`a typed create on the wire: ${client.protobuf ? 'protobuf' : 'JSON'} both ways, and kubectl prints the decoded response`, async () => {
          const name = `wire-${client.tag}`;
          const res = await kubectl('create', 'configmap', name, '-n', ns, '--from-literal=k=v', '-o', 'json', '-v=9');
          expect(res.status).toBe(0);
          const path = `/api/v1/namespaces/${ns}/configmaps`;
          const post = exchange(res.stderr, 'POST', path);
          expect(post.status).toBe('201 Created');
          if (client.protobuf) {
            expect(post.requestContentType).toBe(PROTOBUF);
            expect(post.requestBody).toMatch(PROTOBUF_DUMP);
            expect(post.responseContentType).toBe(PROTOBUF);
            expect(post.responseBody).toMatch(PROTOBUF_DUMP);
          } else {
            expect(post.requestContentType).toBe('application/json');
            expect(post.responseContentType).toBe('application/json');
          }
          // What kubectl printed is what it decoded from the response: the server's uid, resourceVersion and
          // timestamp, which it could only have learnt from the body.
          const printed = JSON.parse(res.stdout);
          const stored = JSON.parse(ok(await kubectl('get', 'configmap', name, '-n', ns, '-o', 'json')));
          expect(printed).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } });
          expect(printed.metadata).toEqual({
            name, namespace: ns, uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion,
            creationTimestamp: stored.metadata.creationTimestamp,
          });
        });

        it('errors come back as Status objects kubectl reports: AlreadyExists (409) and Invalid (422) with its cause', async () => {
          const name = `wire-${client.tag}`;
          const dup = await kubectl('create', 'configmap', name, '-n', ns, '--from-literal=k=v', '-v=9');
          expect(dup.status).toBe(1);
          expect(dup.stdout).toBe('');
          const post = exchange(dup.stderr, 'POST', `/api/v1/namespaces/${ns}/configmaps`);
          expect(post.status).toBe('409 Conflict');
          expect(post.responseContentType).toBe(client.protobuf ? PROTOBUF : 'application/json');
          if (client.protobuf) expect(post.responseBody).toMatch(PROTOBUF_DUMP);
          expect(dup.stderr.endsWith(`error: failed to create configmap: configmaps "${name}" already exists\n`)).toBe(true);

          const again = await kubectl('create', 'configmap', name, '-n', ns, '--from-literal=k=v');
          expect(again.stderr).toBe(`error: failed to create configmap: configmaps "${name}" already exists\n`);
          const secret = await kubectl('create', 'secret', 'generic', `lit-${client.tag}`, '-n', ns, '--from-literal=a=b');
          expect(secret.status).toBe(1);
          // kubectl's own wording for secrets (no colon).
          expect(secret.stderr).toBe(`error: failed to create secret secrets "lit-${client.tag}" already exists\n`);
          const namespace = await kubectl('create', 'namespace', ns);
          expect(namespace.status).toBe(1);
          expect(namespace.stderr).toBe(`Error from server (AlreadyExists): namespaces "${ns}" already exists\n`);

          const invalid = await kubectl('create', 'namespace', 'Bad_Name');
          expect(invalid.status).toBe(1);
          expect(invalid.stdout).toBe('');
          expect(invalid.stderr).toBe('The Namespace "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must '
            + "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
            + "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n");
          const missingNs = await kubectl('create', 'serviceaccount', 'x', '-n', `absent-${client.tag}`);
          expect(missingNs.status).toBe(1);
          expect(missingNs.stderr).toBe(`error: failed to create serviceaccount: namespaces "absent-${client.tag}" not found\n`);
        });
      });
    }
  });
}
