/**
 * Storage migration after an encryption key rotation (docs/encryption.md): rewrites every object of the
 * given resources through the API, so each is stored again with the first provider and key of
 * `--encryption-provider-config`. It does what Kubernetes documents with kubectl
 * (`kubectl get secrets -A -o json | kubectl replace -f -`), for several resources, paged, and retrying
 * conflicts:
 *
 *   node --import tsx scripts/migrate-storage.ts --kubeconfig data/admin.kubeconfig --resources secrets,configmaps
 *   node --import tsx scripts/migrate-storage.ts --kubeconfig ... --encryption-provider-config enc.yaml
 *
 * `--resources` takes the EncryptionConfiguration's names (`secrets`, `deployments.apps`, `*.`, `*.apps`,
 * `*.*`); `--encryption-provider-config` takes every resource the file names. Resources are found through
 * discovery (those that can be listed and updated).
 *
 * Why a PUT of an unchanged object rewrites it: the server marks a value read with a provider or key that
 * does not write as stale, and an update that would otherwise change nothing still writes a stale value
 * (kube's GuaranteedUpdate); an object already under the first key is left as it is (same resourceVersion).
 * A PUT that meets a conflict (the object changed meanwhile) is retried on a fresh read; an object deleted
 * meanwhile is skipped. Every server replica must have the new configuration before the migration starts
 * (else one with the old one may write with the old key again).
 *
 * Prints one line per resource and a total; exits 1 when any object could not be rewritten.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';

export interface Connection {
  readonly server: string;
  readonly token: string;
  readonly caPem: string | undefined;
}

export interface MigrationResult {
  /** Per resource (`secrets`, `deployments.apps`): objects seen, rewritten (new resourceVersion), failed. */
  readonly resources: Readonly<Record<string, { seen: number; rewritten: number; failed: number }>>;
  readonly seen: number;
  readonly rewritten: number;
  readonly failed: number;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

function call(c: Connection, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${c.server}${path}`, {
      method,
      ...(c.caPem === undefined ? { rejectUnauthorized: false } : { ca: c.caPem }),
      agent: false,
      headers: { Authorization: `Bearer ${c.token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function getJson(c: Connection, path: string): Promise<Record<string, any>> {
  const a = await call(c, 'GET', path);
  if (a.status !== 200) throw new Error(`GET ${path}: ${a.status} ${a.body.slice(0, 300)}`);
  return JSON.parse(a.body) as Record<string, any>;
}

/** The server, token and CA of a kubeconfig's current context (a token user, as the admin kubeconfig). */
export function connectionFromKubeconfig(path: string): Connection {
  const cfg = parse(readFileSync(path, 'utf8')) as Record<string, any>;
  const ctx = (cfg.contexts as any[]).find((x) => x.name === cfg['current-context'])?.context;
  const cluster = (cfg.clusters as any[]).find((x) => x.name === ctx?.cluster)?.cluster;
  const user = (cfg.users as any[]).find((x) => x.name === ctx?.user)?.user;
  if (cluster === undefined || typeof user?.token !== 'string') throw new Error(`${path}: no current context with a server and a token user`);
  const caData = cluster['certificate-authority-data'];
  const caFile = cluster['certificate-authority'];
  const caPem = typeof caData === 'string' ? Buffer.from(caData, 'base64').toString('utf8') : typeof caFile === 'string' ? readFileSync(caFile, 'utf8') : undefined;
  return { server: String(cluster.server).replace(/\/+$/, ''), token: user.token, caPem };
}

interface ServedResource {
  /** `secrets`, `deployments.apps` */
  readonly groupResource: string;
  readonly group: string;
  /** `/api/v1` or `/apis/<group>/<version>` */
  readonly base: string;
  readonly name: string;
  readonly namespaced: boolean;
}

/** Resources discovery lists with both `list` and `update` (the preferred version of each group). */
async function discover(c: Connection): Promise<ServedResource[]> {
  const out: ServedResource[] = [];
  const add = (doc: Record<string, any>, group: string, base: string): void => {
    for (const r of (doc.resources ?? []) as any[]) {
      if (String(r.name).includes('/') || !r.verbs?.includes('list') || !r.verbs?.includes('update')) continue;
      out.push({ groupResource: group === '' ? r.name : `${r.name}.${group}`, group, base, name: r.name, namespaced: r.namespaced === true });
    }
  };
  add(await getJson(c, '/api/v1'), '', '/api/v1');
  const groups = await getJson(c, '/apis');
  for (const g of (groups.groups ?? []) as any[]) {
    const gv = g.preferredVersion?.groupVersion ?? g.versions?.[0]?.groupVersion;
    if (typeof gv !== 'string') continue;
    add(await getJson(c, `/apis/${gv}`), g.name, `/apis/${gv}`);
  }
  return out;
}

/** True when `pattern` (an EncryptionConfiguration resource: `secrets`, `*.`, `*.apps`, `*.*`) names `r`. */
function matches(pattern: string, r: ServedResource): boolean {
  if (pattern === '*.*') return true;
  const dot = pattern.indexOf('.');
  const resource = dot < 0 ? pattern : pattern.slice(0, dot);
  const group = dot < 0 ? '' : pattern.slice(dot + 1);
  return group === r.group && (resource === '*' || resource === r.name);
}

/** Every resource an EncryptionConfiguration file names. */
export function resourcesOfConfig(file: string): string[] {
  const cfg = parse(readFileSync(file, 'utf8')) as { resources?: { resources?: string[] }[] };
  return [...new Set((cfg.resources ?? []).flatMap((e) => e.resources ?? []))];
}

const PAGE = 500;
const ATTEMPTS = 5;

/** Rewrites every object of the resources `patterns` names (see the file comment). */
export async function migrateStorage(c: Connection, patterns: readonly string[], log: (line: string) => void = () => undefined): Promise<MigrationResult> {
  const served = (await discover(c)).filter((r) => patterns.some((p) => matches(p, r)));
  const resources: Record<string, { seen: number; rewritten: number; failed: number }> = {};
  for (const r of served) {
    // Several versions of one group are not listed twice (discovery gives the preferred one per group).
    if (resources[r.groupResource] !== undefined) continue;
    const counts = { seen: 0, rewritten: 0, failed: 0 };
    resources[r.groupResource] = counts;
    let token = '';
    do {
      const list = await getJson(c, `${r.base}/${r.name}?limit=${PAGE}${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`);
      const itemKind = String(list.kind ?? '').replace(/List$/, '');
      for (const item of (list.items ?? []) as Record<string, any>[]) {
        counts.seen++;
        const ns = item.metadata?.namespace as string | undefined;
        const path = `${r.base}/${r.namespaced && ns !== undefined ? `namespaces/${encodeURIComponent(ns)}/` : ''}${r.name}/${encodeURIComponent(item.metadata.name)}`;
        let obj: Record<string, any> = { apiVersion: list.apiVersion, kind: itemKind, ...item };
        let done = false;
        for (let attempt = 0; attempt < ATTEMPTS && !done; attempt++) {
          const a = await call(c, 'PUT', path, JSON.stringify(obj));
          if (a.status === 200 || a.status === 201) {
            const rv = (JSON.parse(a.body) as Record<string, any>).metadata?.resourceVersion;
            if (rv !== obj.metadata?.resourceVersion) counts.rewritten++;
            done = true;
          } else if (a.status === 404) {
            done = true; // deleted meanwhile: nothing left to migrate
          } else if (a.status === 409) {
            const fresh = await call(c, 'GET', path);
            if (fresh.status === 404) done = true;
            else if (fresh.status === 200) obj = JSON.parse(fresh.body) as Record<string, any>;
          } else {
            log(`${r.groupResource} ${ns === undefined ? '' : `${ns}/`}${item.metadata.name}: ${a.status} ${a.body.slice(0, 300)}`);
            break;
          }
        }
        if (!done) counts.failed++;
      }
      token = typeof list.metadata?.continue === 'string' ? list.metadata.continue : '';
    } while (token !== '');
    log(`${r.groupResource}: ${counts.seen} objects, ${counts.rewritten} rewritten, ${counts.failed} failed`);
  }
  const all = Object.values(resources);
  const sum = (k: 'seen' | 'rewritten' | 'failed'): number => all.reduce((n, x) => n + x[k], 0);
  return { resources, seen: sum('seen'), rewritten: sum('rewritten'), failed: sum('failed') };
}

async function main(argv: readonly string[]): Promise<number> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i >= 0) return argv[i + 1];
    return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  const kubeconfig = arg('kubeconfig') ?? process.env.KUBECONFIG;
  const list = arg('resources');
  const file = arg('encryption-provider-config');
  if (kubeconfig === undefined || (list === undefined && file === undefined)) {
    process.stderr.write('usage: migrate-storage --kubeconfig FILE (--resources secrets,configmaps | --encryption-provider-config FILE)\n');
    return 2;
  }
  const patterns = [...(list?.split(',').filter((s) => s !== '') ?? []), ...(file === undefined ? [] : resourcesOfConfig(file))];
  const result = await migrateStorage(connectionFromKubeconfig(kubeconfig), patterns, (l) => process.stdout.write(`${l}\n`));
  process.stdout.write(`total: ${result.seen} objects, ${result.rewritten} rewritten, ${result.failed} failed\n`);
  return result.failed > 0 ? 1 : 0;
}

if (process.argv[1]?.endsWith('migrate-storage.ts') === true || process.argv[1]?.endsWith('migrate-storage.js') === true) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
    process.stderr.write(`migrate-storage: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
