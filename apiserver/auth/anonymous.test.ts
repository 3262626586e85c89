import { defaultFeatureGates, resolveFeatureGates } from '../features/feature-gates.js';
import { naming } from '../naming/naming.js';
import { anonymousAllowed, bothAnonymousSettingsMessage, resolveAnonymous } from './anonymous.js';
import { parseAuthenticationConfig } from './authentication-config.js';

const platform = naming('platform.io');
const k8s = naming('k8s.io');
const parse = (text: string, n = platform, features = defaultFeatureGates) => parseAuthenticationConfig(text, n, features);

describe('AuthenticationConfiguration', () => {
  it('reads anonymous with conditions (YAML, this domain)', () => {
    expect(parse(`
apiVersion: apiserver.config.platform.io/v1beta1
kind: AuthenticationConfiguration
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
`)).toEqual({ anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] } });
  });

  it('reads JSON, Kubernetes\' group under k8s.io, and a file without anonymous', () => {
    expect(parse('{"apiVersion":"apiserver.config.k8s.io/v1beta1","kind":"AuthenticationConfiguration","anonymous":{"enabled":false}}', k8s))
      .toEqual({ anonymous: { enabled: false, conditions: [] } });
    expect(parse('apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthenticationConfiguration\n', k8s)).toEqual({});
  });

  it.each([
    ['', 'empty config data'],
    ['apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n', 'apiVersion apiserver.config.platform.io/v1alpha1 or apiserver.config.platform.io/v1beta1'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: Other\n', 'expected kind AuthenticationConfiguration'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: false\n  conditions:\n  - path: /livez\n',
      'anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  conditions:\n  - path: /livez\n',
      'enabled should be set to true when conditions are defined'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  allow: true\n',
      'strict decoding error: unknown field "anonymous.allow"'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: https://x}\n',
      'JWT authenticators are not supported'],
    ['apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\nanonymous: {enabled: false}\n',
      'Map keys must be unique'],
  ])('refuses %j', (text, message) => {
    expect(() => parse(text)).toThrow(message);
  });

  it('refuses anonymous with AnonymousAuthConfigurableEndpoints off', () => {
    const off = resolveFeatureGates(new Map([['AnonymousAuthConfigurableEndpoints', false]]));
    expect(() => parse('apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\n', platform, off))
      .toThrow('anonymous: Forbidden: anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled');
  });
});

describe('anonymous settings', () => {
  const file = { anonymous: { enabled: true, conditions: [{ path: '/livez' }] } };

  it('the flag and the file together are an error naming both', () => {
    expect(() => resolveAnonymous({ flag: true, file })).toThrow(bothAnonymousSettingsMessage);
    expect(() => resolveAnonymous({ flag: false, file })).toThrow('--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });

  it('a file without anonymous leaves the flag in charge', () => {
    expect(resolveAnonymous({ flag: false, file: {} })).toEqual({ enabled: false, paths: [] });
  });

  it('defaults to enabled; AlwaysAllow turns the flag\'s anonymous off with kube\'s warning', () => {
    expect(resolveAnonymous({ flag: undefined, file: undefined })).toEqual({ enabled: true, paths: [] });
    const warnings: string[] = [];
    expect(resolveAnonymous({ flag: undefined, file: undefined, authorizationModes: ['AlwaysAllow'], onWarning: (w) => warnings.push(w) }))
      .toEqual({ enabled: false, paths: [] });
    expect(warnings).toEqual(['AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer']);
    // The file's setting is not reset.
    expect(resolveAnonymous({ flag: undefined, file, authorizationModes: ['AlwaysAllow'] }).enabled).toBe(true);
  });

  it.each([
    [{ enabled: true, paths: [] }, '/api/v1/pods', true],
    [{ enabled: false, paths: [] }, '/livez', false],
    [{ enabled: true, paths: ['/livez'] }, '/livez', true],
    [{ enabled: true, paths: ['/livez'] }, '/livez/', false],
    [{ enabled: true, paths: ['/livez'] }, '/livez/ping', false],
    [{ enabled: true, paths: ['/livez'] }, '/readyz', false],
  ])('%j on %s: %s', (settings, path, allowed) => {
    expect(anonymousAllowed(settings)(path)).toBe(allowed);
  });
});
