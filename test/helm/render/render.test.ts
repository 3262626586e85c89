/**
 * The Helm renderer (test/helm/render/*.go through test/helm/render.ts) against its own small chart
 * (testdata/demo): each case is one behaviour of Helm's engine the project's chart relies on.
 */
import { join } from 'node:path';
import { findManifest, mergedValues, renderChart, RenderError, renderNotes, repoRoot } from '../render.js';

const chart = join(repoRoot, 'test', 'helm', 'render', 'testdata', 'demo');

describe('the Helm renderer', () => {
  it('renders every template in install order with # Source comments, dropping empty documents', () => {
    const r = renderChart({ chart });
    expect(r.manifests.map((m) => `${m.object.kind} ${m.source}`)).toEqual([
      'Namespace demo/templates/namespace.yaml',
      'ServiceAccount demo/templates/namespace.yaml',
      'ConfigMap demo/templates/configmap.yaml',
    ]);
    expect(r.yaml).toMatch(/^---\n# Source: demo\/templates\/namespace\.yaml\napiVersion: v1\n/);
  });

  it('gives templates Helm\'s values, release, chart, capabilities and files', () => {
    const data = findManifest(renderChart({ chart, releaseName: 'rel', namespace: 'ns1' }), 'ConfigMap').data as Record<string, string>;
    // Numbers are float64 as in Helm: a large one prints in exponent form unless converted.
    expect(data.big).toBe('1e+06');
    expect(data.bigInt).toBe('1000000');
    expect(data.missing).toBe('');
    expect(data.tpl).toBe('demo-rel');
    // toYaml quotes a string YAML 1.1 would read as a boolean.
    expect(data.list).toBe('- 1\n- x\n- "on"\n');
    expect(data.switch).toBe('on');
    expect(data.file).toBe('hello: world\n');
    // .helmignore keeps files/c.skip out of .Files.
    expect(data.globbed).toBe('a.yaml,b.txt');
    expect(data.kube).toBe('32 true false');
    expect(data.lookup).toBe('{}');
    expect(data.json).toBe('{"a":[1,"two"],"b":2}');
    expect(data.template).toBe('demo/templates/configmap.yaml');
    expect(findManifest(renderChart({ chart, namespace: 'ns1' }), 'Namespace').metadata.name).toBe('ns1');
  });

  it('merges values files in order, a null deleting a default', () => {
    const values = [{ removable: null, big: 2 }, { big: 3 }];
    expect(mergedValues({ chart, values })).toMatchObject({ big: 3, switch: 'on' });
    expect(mergedValues({ chart, values })).not.toHaveProperty('removable');
    const data = findManifest(renderChart({ chart, values }), 'ConfigMap').data as Record<string, string>;
    expect(data.removable).toBe('');
    expect(data.big).toBe('3');
  });

  it('offers --api-versions to .Capabilities.APIVersions', () => {
    const data = findManifest(renderChart({ chart, apiVersions: ['monitoring.coreos.com/v1'] }), 'ConfigMap').data as Record<string, string>;
    expect(data.kube).toBe('32 true true');
  });

  it('fails with required\'s message, and on endless include recursion', () => {
    expect(() => renderChart({ chart, values: [{ mustFail: true }] })).toThrow(RenderError);
    expect(() => renderChart({ chart, values: [{ mustFail: true }] })).toThrow(/mustFail: this value refuses to render/);
    expect(() => renderChart({ chart, values: [{ recurse: true }] })).toThrow(/rendering recursion deeper than 1000/);
  });

  it('renders NOTES.txt on request', () => {
    expect(renderNotes({ chart, releaseName: 'r1', namespace: 'n1' })).toBe('Installed r1-demo in n1.\n');
  });
});
