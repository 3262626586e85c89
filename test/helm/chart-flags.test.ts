/**
 * The chart's container args are flags the server accepts: every rendered argument (after the kubelet's
 * $(POD_IP) expansion) goes through the server's own parser and config builder, for the value sets the
 * chart supports, so a renamed or mistyped flag fails here rather than in a crash-looping pod.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../apiserver/config/server-config.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import { generateCa, issueCert } from '../server/proxy-certs.js';
import { containerArgs, findManifest, renderChart, RenderError, type RenderOptions } from './render.js';

function args(opts: RenderOptions): string[] {
  return containerArgs(findManifest(renderChart(opts), 'Deployment'))
    .map((a) => a.replace('$(POD_IP)', '10.0.0.7'));
}

const valueSets: Record<string, RenderOptions> = {
  defaults: {},
  'make cluster': { valuesFiles: ['deploy/cluster-values.yaml'] },
  'external etcd, client CA, extra flags': {
    values: [{
      etcd: { mode: 'external', external: { endpoints: ['https://etcd-0.example:2379', 'https://etcd-1.example:2379'] } },
      auth: { clientCASecretName: 'clients', tokenSecretName: 'tokens', serviceAccountKeySecretName: 'sa', signingCASecretName: 'signing' },
      tls: { secretName: 'serving' },
      server: { flags: { 'max-requests-inflight': 1000000, 'feature-gates': ['WatchList=true'], 'anonymous-auth': false } },
    }],
  },
};

describe('the chart\'s server flags', () => {
  it.each(Object.entries(valueSets))('%s: parsed and built by the server', (_name, opts) => {
    const a = args(opts);
    const config = buildConfig(parseFlags(a));
    expect(config.storage).toMatchObject({ backend: 'etcd' });
    expect(a).toContain('--data-dir=/var/lib/platform-apiserver');
  });

  it('renders server.flags after the derived ones, whole numbers without an exponent', () => {
    const a = args(valueSets['external etcd, client CA, extra flags']!);
    expect(a).toContain('--max-requests-inflight=1000000');
    expect(a).toContain('--feature-gates=WatchList=true');
    expect(a).toContain('--client-ca-file=/etc/platform-apiserver/client-ca/ca.crt');
    expect(a.indexOf('--anonymous-auth=false')).toBeGreaterThan(a.indexOf('--shutdown-timeout=30s'));
  });

  it('etcd client TLS renders kube-apiserver\'s flags on the mounted Secret, which the server accepts', async () => {
    const mount = '/etc/platform-apiserver/etcd';
    const a = args({ values: [{ etcd: { mode: 'external', external: { endpoints: ['https://e:2379'], clientTLSSecretName: 'etcd-client' } } }] });
    expect(a.filter((x) => /^--etcd-(cafile|certfile|keyfile)=/.test(x)))
      .toEqual([`--etcd-cafile=${mount}/ca.crt`, `--etcd-certfile=${mount}/tls.crt`, `--etcd-keyfile=${mount}/tls.key`]);
    // The server reads the files when it parses its flags: stand in for the kubelet's Secret mount.
    const dir = mkdtempSync(join(tmpdir(), 'etcd-client-secret-'));
    try {
      const ca = await generateCa('etcd-ca');
      const client = await issueCert(ca, 'platform-apiserver-etcd-client');
      writeFileSync(join(dir, 'ca.crt'), ca.certPem);
      writeFileSync(join(dir, 'tls.crt'), client.certPem);
      writeFileSync(join(dir, 'tls.key'), client.keyPem);
      const config = buildConfig(parseFlags(a.map((x) => x.replace(mount, dir))));
      expect(config.storage).toEqual({
        backend: 'etcd', endpoints: ['https://e:2379'],
        tls: { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a derived flag in server.flags, and a grace period shorter than the drain', () => {
    expect(() => renderChart({ values: [{ server: { flags: { 'etcd-servers': 'http://x:2379' } } }] }))
      .toThrow(/server.flags.etcd-servers: the chart sets --etcd-servers/);
    expect(() => renderChart({ values: [{ terminationGracePeriodSeconds: 30 }] }))
      .toThrow(RenderError);
    const d = findManifest(renderChart({ values: [{ server: { shutdownDelaySeconds: 40 } }] }), 'Deployment');
    expect((d.spec as { template: { spec: { terminationGracePeriodSeconds: number } } }).template.spec.terminationGracePeriodSeconds).toBe(80);
  });
});

describe('values.schema.json', () => {
  it('is checked before rendering, as helm does: unknown keys and wrong types are refused', () => {
    expect(() => renderChart({ values: [{ replicas: 3 }] })).toThrow(/\(root\): must NOT have additional properties \(replicas\)/);
    expect(() => renderChart({ values: [{ service: { type: 'NodePort' } }] })).toThrow(/service\.type: must be equal to one of the allowed values/);
    expect(() => renderChart({ values: [{ etcd: { bundled: { replicas: 2 } } }] })).toThrow(/etcd\.bundled\.replicas/);
  });
});
