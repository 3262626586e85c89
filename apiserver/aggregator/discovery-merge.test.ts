/** Aggregated group versions merged into discovery's groups, in kube-aggregator's order; the legacy list conversion. */
import type { ServedGroup } from '../endpoints/discovery/served-groups.js';
import type { AggregatedGroupVersion } from './aggregated-group-version.js';
import { discoveryFromResourceList } from './backend-documents.js';
import { mergeAggregated } from './discovery-merge.js';

const gv = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number): AggregatedGroupVersion => ({
  name: `${version}.${group}`,
  group,
  version,
  groupPriorityMinimum,
  versionPriority,
  resources: [{ resource: `${version}-things` }],
  freshness: 'Current',
});
const local = (name: string, ...versions: string[]): ServedGroup => ({ name, versions: versions.map((version) => ({ version, resources: [] })) });
const shape = (groups: ServedGroup[]): string[] => groups.map((g) => `${g.name}:${g.versions.map((v) => `${v.version}${v.aggregated ? '*' : ''}`).join(',')}`);

test("backend-only groups follow ours, by their best APIService's groupPriorityMinimum then name; versions by versionPriority", () => {
  const merged = mergeAggregated(
    [local(''), local('apps', 'v1')],
    [gv('b.example.com', 'v1', 100, 10), gv('a.example.com', 'v1', 100, 10), gv('z.example.com', 'v1beta1', 2000, 1), gv('z.example.com', 'v2', 10, 5), gv('z.example.com', 'v1', 10, 5), gv('', 'v1', 20000, 1)],
  );
  // The core group's (legacy) APIService is never listed under /apis.
  expect(shape(merged)).toEqual([':', 'apps:v1', 'z.example.com:v2*,v1*,v1beta1*', 'a.example.com:v1*', 'b.example.com:v1*']);
});

test('a group both local and aggregated lists its versions together; the aggregated one replaces a local namesake', () => {
  const merged = mergeAggregated([local('apps', 'v1', 'v1beta1')], [gv('apps', 'v2', 1, 1), gv('apps', 'v1beta1', 1, 1)]);
  expect(shape(merged)).toEqual(['apps:v2*,v1,v1beta1*']);
});

test("a legacy APIResourceList becomes aggregated entries, sub-resources folded into their resource", () => {
  expect(
    discoveryFromResourceList([
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'], categories: ['all'] },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
      { name: 'orphans/status', kind: 'X', verbs: [] },
      { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: ['list'] },
    ]),
  ).toEqual([
    {
      resource: 'pods',
      responseKind: { group: '', version: '', kind: 'Pod' },
      scope: 'Namespaced',
      singularResource: 'pod',
      verbs: ['get'],
      categories: ['all'],
      subresources: [
        { subresource: 'log', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get'] },
        { subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
      ],
    },
    { resource: 'nodes', responseKind: { group: '', version: '', kind: 'Node' }, scope: 'Cluster', singularResource: 'node', verbs: ['list'] },
  ]);
});
