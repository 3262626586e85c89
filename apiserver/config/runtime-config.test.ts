import { FlagError } from './flag-error.js';
import { checkRuntimeConfig, defaultRuntimeConfig, parseRuntimeConfig, versionLevel } from './runtime-config.js';

describe('versionLevel', () => {
  it.each([
    ['v1', 'ga'], ['v12', 'ga'], ['v1beta1', 'beta'], ['v2beta3', 'beta'], ['v1alpha1', 'alpha'], ['v1test', 'other'], ['1', 'other'],
  ])('%s is %s', (v, level) => expect(versionLevel(v)).toBe(level));
});

describe('parseRuntimeConfig defaults', () => {
  it('serves stable versions, not beta or alpha', () => {
    expect(defaultRuntimeConfig.enabled('', 'v1')).toBe(true);
    expect(defaultRuntimeConfig.enabled('apps', 'v1', 'deployments')).toBe(true);
    expect(defaultRuntimeConfig.enabled('batch', 'v2beta1')).toBe(false);
    expect(defaultRuntimeConfig.enabled('batch', 'v2alpha1', 'cronjobs')).toBe(false);
  });

  it('serves the betas declared on by default', () => {
    const c = parseRuntimeConfig('', { betaOnByDefault: (g, v) => g === 'policy' && v === 'v1beta1' });
    expect(c.enabled('policy', 'v1beta1')).toBe(true);
    expect(c.enabled('policy', 'v2beta1')).toBe(false);
    expect(parseRuntimeConfig('api/beta=false', { betaOnByDefault: () => true }).enabled('policy', 'v1beta1')).toBe(false);
  });
});

describe('parseRuntimeConfig keys', () => {
  it('treats an omitted value as true and accepts Go booleans', () => {
    const c = parseRuntimeConfig('batch/v2alpha1, storage.platform.io/v1beta1=T ,apps/v1=0');
    expect(c.enabled('batch', 'v2alpha1')).toBe(true);
    expect(c.enabled('storage.platform.io', 'v1beta1')).toBe(true);
    expect(c.enabled('apps', 'v1')).toBe(false);
  });

  it('applies api/all, api/ga, api/beta, api/alpha in that order, below explicit versions', () => {
    const c = parseRuntimeConfig('api/ga=true,api/all=false,batch/v1=false');
    expect(c.enabled('apps', 'v1')).toBe(true);
    expect(c.enabled('batch', 'v1')).toBe(false);
    expect(c.enabled('apps', 'v1beta1')).toBe(false);
    const all = parseRuntimeConfig('api/all');
    expect(all.enabled('x.io', 'v1alpha1')).toBe(true);
    expect(all.enabled('x.io', 'v2beta2')).toBe(true);
    const alpha = parseRuntimeConfig('api/alpha=true');
    expect(alpha.enabled('x.io', 'v1alpha1')).toBe(true);
    expect(alpha.enabled('x.io', 'v1beta1')).toBe(false);
  });

  it('lets a resource key win over its version', () => {
    const c = parseRuntimeConfig('storage.platform.io/v1beta1/csistoragecapacities,apps/v1/deployments=false');
    expect(c.enabled('storage.platform.io', 'v1beta1', 'csistoragecapacities')).toBe(true);
    expect(c.enabled('storage.platform.io', 'v1beta1', 'others')).toBe(false);
    expect(c.enabled('apps', 'v1', 'deployments')).toBe(false);
    expect(c.enabled('apps', 'v1', 'replicasets')).toBe(true);
    expect(c.enabled('apps', 'v1')).toBe(true);
  });

  it.each(['v1=false', '/v1=false', 'api/v1=false', 'api/legacy=false'])('%s addresses the core group', (flag) => {
    expect(parseRuntimeConfig(flag).enabled('', 'v1')).toBe(false);
    expect(parseRuntimeConfig(flag).enabled('', 'v1', 'secrets')).toBe(false);
  });

  it.each(['v1/secrets=false', '/v1/secrets=false', 'api/v1/secrets=false'])('%s addresses a core resource', (flag) => {
    const c = parseRuntimeConfig(flag);
    expect(c.enabled('', 'v1', 'secrets')).toBe(false);
    expect(c.enabled('', 'v1', 'configmaps')).toBe(true);
  });

  it('lets a later duplicate win', () => {
    expect(parseRuntimeConfig('apps/v1=false,apps/v1=true').enabled('apps', 'v1')).toBe(true);
  });
});

describe('parseRuntimeConfig errors', () => {
  it.each([
    ['apps/v1=maybe', 'value "maybe" is not a boolean'],
    ['=true', 'has no key'],
    ['apps', 'want api/all'],
    ['a/b/c/d', 'want api/all'],
    ['apps/v1/Deployments', 'always lowercase plural, not "Deployments"'],
    ['api/v1beta', 'is not an API version'],
    ['Apps_x/v1', 'is not an API group'],
  ])('%s', (flag, message) => {
    expect(() => parseRuntimeConfig(flag)).toThrow(FlagError);
    expect(() => parseRuntimeConfig(flag)).toThrow(message);
  });
});

describe('checkRuntimeConfig', () => {
  const known = [{ group: '', version: 'v1' }, { group: 'apps', version: 'v1' }];
  it('rejects an unknown version of a known group and ignores unknown groups', () => {
    expect(checkRuntimeConfig(parseRuntimeConfig('apps/v1=false,other.io/v1,api/all'), known)).toBeUndefined();
    expect(checkRuntimeConfig(parseRuntimeConfig('apps/v2=true'), known)).toContain('group version apps/v2 that has not been registered');
    expect(checkRuntimeConfig(parseRuntimeConfig('api/v2'), known)).toContain('group version v2');
  });
});
