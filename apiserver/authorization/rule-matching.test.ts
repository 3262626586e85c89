import type { AuthorizationAttributes } from './authorizer.js';
import type { PolicyRule } from './rbac-types.js';
import { nonResourcePathMatches, ruleAllows } from './rule-matching.js';

const user = { name: 'bob', uid: '', groups: [] };

function res(verb: string, group: string, resource: string, subresource = '', name = '', namespace = 'ns'): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', namespace, apiGroup: group, apiVersion: 'v1', resource, subresource, name };
}

function url(verb: string, path: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: false, path, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  ({ verbs, apiGroups, resources, ...(resourceNames === undefined ? {} : { resourceNames }) });
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe('ruleAllows (Kubernetes RuleAllows)', () => {
  const rows: [string, PolicyRule, AuthorizationAttributes, boolean][] = [
    ['exact verb, group, resource', r(['get'], [''], ['pods']), res('get', '', 'pods'), true],
    ['other verb', r(['get'], [''], ['pods']), res('list', '', 'pods'), false],
    ['verb *', r(['*'], [''], ['pods']), res('deletecollection', '', 'pods'), true],
    ['other group', r(['get'], [''], ['pods']), res('get', 'apps', 'pods'), false],
    ['group *', r(['get'], ['*'], ['deployments']), res('get', 'apps', 'deployments'), true],
    ['resource *', r(['get'], ['apps'], ['*']), res('get', 'apps', 'deployments'), true],
    ['resource * covers subresources', r(['get'], [''], ['*']), res('get', '', 'pods', 'log'), true],
    ['main resource does not cover its subresource', r(['get'], [''], ['pods']), res('get', '', 'pods', 'log', 'p'), false],
    ['resource/subresource', r(['get'], [''], ['pods/log']), res('get', '', 'pods', 'log', 'p'), true],
    ['resource/subresource does not cover the resource', r(['get'], [''], ['pods/log']), res('get', '', 'pods', '', 'p'), false],
    ['*/subresource', r(['update'], ['apps'], ['*/scale']), res('update', 'apps', 'deployments', 'scale', 'd'), true],
    ['*/subresource, other subresource', r(['update'], ['apps'], ['*/scale']), res('update', 'apps', 'deployments', 'status', 'd'), false],
    ['*/subresource does not cover a main resource', r(['get'], [''], ['*/scale']), res('get', '', 'scale'), false],
    ['subresource name as a suffix only', r(['get'], [''], ['*/xscale']), res('get', '', 'pods', 'scale', 'p'), false],
    ['resourceNames: listed name', r(['get'], [''], ['configmaps'], ['a']), res('get', '', 'configmaps', '', 'a'), true],
    ['resourceNames: other name', r(['get'], [''], ['configmaps'], ['a']), res('get', '', 'configmaps', '', 'b'), false],
    ['resourceNames: list has no name', r(['list'], [''], ['configmaps'], ['a']), res('list', '', 'configmaps'), false],
    ['resourceNames: watch of one name (field selector)', r(['watch'], [''], ['configmaps'], ['a']), res('watch', '', 'configmaps', '', 'a'), true],
    ['resourceNames: create has no name', r(['create'], [''], ['configmaps'], ['a']), res('create', '', 'configmaps'), false],
    ['resourceNames: deletecollection', r(['deletecollection'], [''], ['configmaps'], ['a']), res('deletecollection', '', 'configmaps'), false],
    ['resourceNames with subresource', r(['get'], [''], ['pods/log'], ['p']), res('get', '', 'pods', 'log', 'p'), true],
    ['empty resourceNames: any name', r(['get'], [''], ['configmaps'], []), res('get', '', 'configmaps', '', 'z'), true],
    ['missing apiGroups never match', { verbs: ['get'], resources: ['pods'] }, res('get', '', 'pods'), false],
    ['resource rule never matches a path', r(['get'], ['*'], ['*']), url('get', '/healthz'), false],
    ['path rule never matches a resource', u(['get'], ['*']), res('get', '', 'pods'), false],
    ['exact path', u(['get'], ['/healthz']), url('get', '/healthz'), true],
    ['exact path: sub-path', u(['get'], ['/healthz']), url('get', '/healthz/etcd'), false],
    ['path prefix *', u(['get'], ['/healthz/*']), url('get', '/healthz/etcd'), true],
    ['path prefix * does not cover the root without slash', u(['get'], ['/healthz/*']), url('get', '/healthz'), false],
    ['path prefix without slash', u(['get'], ['/healthz*']), url('get', '/healthz'), true],
    ['path *', u(['get'], ['*']), url('get', '/anything/at/all'), true],
    ['path: other verb', u(['get'], ['/metrics']), url('post', '/metrics'), false],
    ['path: verb *', u(['*'], ['/metrics']), url('post', '/metrics'), true],
    ['/apis/* covers discovery', u(['get'], ['/apis', '/apis/*']), url('get', '/apis/apps/v1'), true],
  ];
  it.each(rows)('%s', (_name, rule, attrs, want) => {
    expect(ruleAllows(attrs, rule)).toBe(want);
  });
});

describe('nonResourcePathMatches', () => {
  it.each([
    ['/a**', '/a/b', true],
    ['/a*', '/ab', true],
    ['/a', '/a/', false],
    ['*', '', true],
  ] as const)('%s vs %s', (rule, path, want) => {
    expect(nonResourcePathMatches(rule, path)).toBe(want);
  });
});
