/**
 * The chart renders, for every value set, only objects the API accepts as they are (issue 17, item 4):
 * - the merged values satisfy values.schema.json (Helm checks it on install; the renderer does not);
 * - every rendered object validates strictly against its kind's schema (test/helm/schemas.ts: the
 *   Kubernetes 1.32 JSON Schemas, the prometheus-operator and cert-manager CRDs), so an unknown field, a
 *   wrong type or a misspelt key fails here instead of at `helm install`;
 * - each set renders the objects its values ask for (and no others).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsImport, { type FormatsPlugin } from 'ajv-formats';
import { validateObject, describeErrors, validatorFor } from './schemas.js';
import { chartUnderTest, objectsOf, ref, renderSet, VALUE_SETS, valuesOf, type Json } from './value-sets.js';

// See schemas.ts: the CommonJS default export is the plugin itself at run time.
const addFormats = addFormatsImport as unknown as FormatsPlugin;

const valuesSchema = JSON.parse(readFileSync(join(chartUnderTest, 'values.schema.json'), 'utf8')) as Json;

function valuesValidator() {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(valuesSchema);
}

const kindsOf = (objects: Json[]): string[] => [...new Set(objects.map((o) => o.kind as string))].sort();

describe.each(VALUE_SETS)('the chart with values "$name"', (set) => {
  it('has values that satisfy values.schema.json', () => {
    const validate = valuesValidator();
    const ok = validate(valuesOf(set));
    expect(describeErrors(validate.errors)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('renders only objects valid against their kind\'s strict schema', () => {
    const objects = objectsOf(renderSet(set));
    expect(objects.length).toBeGreaterThan(0);
    const invalid = objects.map((o) => ({ object: ref(o), errors: validateObject(o) })).filter((x) => x.errors.length > 0);
    expect(invalid).toEqual([]);
  });
});

describe('what each value set renders', () => {
  const byName = (name: string) => objectsOf(renderSet(VALUE_SETS.find((s) => s.name === name)!));

  it('defaults: the server, a bundled etcd and the monitoring objects; generated credentials', () => {
    const objects = byName('defaults');
    expect(kindsOf(objects)).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'PrometheusRule', 'Secret',
      'Service', 'ServiceAccount', 'ServiceMonitor', 'StatefulSet'].sort());
    expect(objects.filter((o) => o.kind === 'StatefulSet')).toHaveLength(1);
    // The headless Service of the bundled etcd, and the server's.
    const services = objects.filter((o) => o.kind === 'Service');
    expect(services.map((s) => s.spec.clusterIP === 'None')).toEqual(expect.arrayContaining([true, false]));
    const secrets = objects.filter((o) => o.kind === 'Secret');
    expect(secrets).toHaveLength(1);
    expect(Object.keys(secrets[0]!.data)).toEqual(expect.arrayContaining(['tls.crt', 'tls.key', 'tokens.csv', 'sa.key']));
  });

  it('external etcd: no StatefulSet, no generated Secret; the endpoints and the client TLS reach the server', () => {
    const objects = byName('external etcd');
    expect(objects.filter((o) => o.kind === 'StatefulSet')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const args = (objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args) as string[];
    expect(args).toContain('--etcd-servers=https://etcd-0.etcd.example.com:2379,https://etcd-1.etcd.example.com:2379,https://etcd-2.etcd.example.com:2379');
    expect(args.filter((a) => /^--etcd-(cafile|certfile|keyfile)=/.test(a))).toHaveLength(3);
    const service = objects.find((o) => o.kind === 'Service')!;
    expect(service.spec.type).toBe('LoadBalancer');
    expect(service.spec.loadBalancerSourceRanges).toEqual(['10.0.0.0/8']);
  });

  it('cert-manager: a Certificate for the Service\'s names and the extra ones, from the named issuer', () => {
    const objects = byName('cert-manager');
    const certificates = objects.filter((o) => o.kind === 'Certificate');
    expect(certificates).toHaveLength(1);
    const spec = certificates[0]!.spec;
    expect(spec.issuerRef).toEqual({ name: 'platform-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
    expect(spec.dnsNames).toEqual(expect.arrayContaining(['api.platform.example.com']));
    expect(spec.dnsNames.some((n: string) => n.endsWith('.svc'))).toBe(true);
    expect(spec.ipAddresses).toEqual(['203.0.113.10']);
    // The server mounts the Secret cert-manager writes.
    const volumes = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.volumes as Json[];
    expect(volumes.map((v) => v.secret?.secretName)).toContain(spec.secretName);
  });

  it('monitoring off: no ServiceMonitor, PrometheusRule or dashboard', () => {
    const objects = byName('monitoring off');
    expect(objects.filter((o) => ['ServiceMonitor', 'PrometheusRule'].includes(o.kind))).toEqual([]);
    expect(objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard !== undefined)).toEqual([]);
  });
});

describe('the validators themselves', () => {
  // A chart test is only as good as its schemas: each of these must be refused.
  it.each([
    ['an unknown field in a container', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } },
        spec: { containers: [{ name: 'c', image: 'i', readinessProbes: {} }] } } } }, '(readinessProbes)'],
    ['a port as a string where an integer is required', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' },
      spec: { ports: [{ port: '443' }] } }, '/spec/ports/0/port must be integer'],
    ['an unknown field in a ServiceMonitor endpoint', { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor',
      metadata: { name: 'x' }, spec: { selector: {}, endpoints: [{ port: 'https', intervall: '30s' }] } }, '(intervall)'],
    ['a PrometheusRule rule without expr', { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule',
      metadata: { name: 'x' }, spec: { groups: [{ name: 'g', rules: [{ record: 'r' }] }] } }, "must have required property 'expr'"],
    ['an unknown metadata field on a custom resource', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate',
      metadata: { name: 'x', label: {} }, spec: { secretName: 's', issuerRef: { name: 'i' } } }, '(label)'],
  ])('refuses %s', (_what, object, message) => {
    expect(validateObject(object).join('\n')).toContain(message);
  });

  it('refuses a kind it has no schema for', () => {
    expect(() => validatorFor('example.com/v1', 'Widget')).toThrow(/no schema for example\.com\/v1 Widget/);
  });
});
