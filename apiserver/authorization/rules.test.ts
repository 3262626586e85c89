import { anonymousUser } from '../auth/user-info.js';
import { allowAllRules, denyAllRules, policyRulesResolver, unionRulesResolver, unlistableRules, type RulesResolver } from './rules.js';

const user = { name: 'alice', uid: 'u', groups: ['devs'] };

describe('policyRulesResolver', () => {
  it('splits policy rules into resource and non-resource rules as kube RBAC lists them', () => {
    const seen: [string, string][] = [];
    const resolver = policyRulesResolver({
      rulesFor(u, ns) {
        seen.push([u.name, ns]);
        return {
          rules: [
            { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] },
            { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
            { verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] },
            { verbs: ['*'], apiGroups: ['*'], resources: ['*'], nonResourceURLs: ['*'] },
            { verbs: ['get'] },
          ],
          errors: [],
        };
      },
    });
    expect(resolver.rulesFor(user, 'ns1')).toEqual({
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: [] },
        { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] },
      ],
      nonResourceRules: [
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
      incomplete: false,
      evaluationError: '',
    });
    expect(seen).toEqual([['alice', 'ns1']]);
  });

  it('reports the errors met as the evaluation error, one bare and several bracketed', () => {
    const withErrors = (errors: string[]): RulesResolver => policyRulesResolver({ rulesFor: () => ({ rules: [], errors }) });
    expect(withErrors(['clusterrole.rbac "x" not found']).rulesFor(user, 'a').evaluationError).toBe('clusterrole.rbac "x" not found');
    expect(withErrors(['e1', 'e2']).rulesFor(user, 'a')).toMatchObject({ incomplete: false, evaluationError: '[e1, e2]' });
  });
});

describe('simple resolvers and their union', () => {
  it('AlwaysAllow lists everything, AlwaysDeny nothing, both complete; an unlistable one is incomplete', () => {
    expect(allowAllRules.rulesFor(anonymousUser, 'x')).toMatchObject({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
    expect(denyAllRules.rulesFor(user, 'x')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' });
    expect(unlistableRules.rulesFor(user, 'x').incomplete).toBe(true);
  });

  it('concatenates in order, incomplete when any is, errors joined', () => {
    const erring: RulesResolver = { rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: 'boom' }) };
    const u = unionRulesResolver([denyAllRules, allowAllRules, erring, unlistableRules]);
    const got = u.rulesFor(user, 'ns');
    expect(got.resourceRules).toHaveLength(1);
    expect(got.nonResourceRules).toHaveLength(1);
    expect(got.incomplete).toBe(true);
    expect(got.evaluationError).toBe('[boom, the authorizer does not list rules]');
    expect(unionRulesResolver([denyAllRules, erring]).rulesFor(user, 'ns')).toMatchObject({ incomplete: false, evaluationError: 'boom' });
  });
});
