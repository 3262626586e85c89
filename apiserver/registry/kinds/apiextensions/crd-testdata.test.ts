/**
 * The real definitions of /work/shared/testdata/crds (Gateway API, cert-manager, Argo CD, Prometheus
 * operator), used as they are: each is accepted by the create path in k8s.io mode (schema, defaults,
 * structural rules, extensions, every CEL rule compiled and under the cost limits), gets Kubernetes'
 * defaults, and an unchanged update is accepted too.
 */
import { create, testdataDefinitions, update } from './testing.js';

const definitions = testdataDefinitions();

test('the testdata holds the four projects', () => {
  expect(definitions.length).toBeGreaterThanOrEqual(20);
  for (const project of ['gateway-api-standard/', 'cert-manager/', 'argo-cd/', 'prometheus-operator/']) {
    expect(definitions.some((d) => d.file.startsWith(project))).toBe(true);
  }
});

describe.each(definitions.map((d) => [d.file, d.crd] as const))('%s', (_file, crd) => {
  test('validates without errors on create, defaulted as Kubernetes does', () => {
    const created = create(crd);
    expect(created.errors).toEqual([]);
    const spec = created.obj.spec as { names: { kind: string; singular: string; listKind: string }; conversion: { strategy: string }; versions: { name: string; storage: boolean }[] };
    expect(spec.names.singular).toBe((crd.spec as { names: { singular?: string; kind: string } }).names.singular ?? spec.names.kind.toLowerCase());
    expect(spec.names.listKind).toBe(`${spec.names.kind}List`);
    expect(spec.conversion.strategy).toBeDefined();
    expect((created.obj.status as { storedVersions: string[] }).storedVersions).toEqual([spec.versions.find((v) => v.storage)!.name]);
  });

  test('an unchanged update is accepted', () => {
    const stored = create(crd).obj;
    expect(update(stored, stored).errors).toEqual([]);
  });
});
