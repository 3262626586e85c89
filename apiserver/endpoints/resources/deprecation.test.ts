import { naming } from '../../naming/naming.js';
import { builtinKinds } from '../../registry/kinds/index.js';
import { groupOf } from '../../registry/kind-strategy.js';
import {
  BUILTIN_LIFECYCLE,
  CURRENT_RELEASE,
  builtinDeprecation,
  builtinDeprecationWarning,
  isPrerelease,
  lifecycleKey,
  lifecycleReleases,
} from './deprecation.js';

describe('deprecated versions', () => {
  it('words the built-in warning as kube does', () => {
    expect(builtinDeprecationWarning({ group: 'policy', version: 'v1beta1', kind: 'PodSecurityPolicy' }, [1, 21], [1, 25]))
      .toBe('policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+');
    expect(builtinDeprecationWarning(
      { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', kind: 'FlowSchema' }, [1, 29], [1, 32],
      { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema' },
    )).toBe('flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.k8s.io/v1 FlowSchema');
    // The core group's GroupVersion is the version alone; no removal release: no "unavailable" part.
    expect(builtinDeprecationWarning({ group: '', version: 'v1', kind: 'ComponentStatus' }, [1, 19], undefined))
      .toBe('v1 ComponentStatus is deprecated in v1.19+');
  });

  it('follows the prerelease lifecycle rule: deprecated 3 minors after introduction, removed 3 after that', () => {
    expect(lifecycleReleases({ introduced: [1, 31] })).toEqual({ deprecated: [1, 34], removed: [1, 37] });
    expect(lifecycleReleases({ introduced: [1, 26], removed: [1, 32] })).toEqual({ deprecated: [1, 29], removed: [1, 32] });
    const table = { 'networking/v1beta1/IPAddress': { introduced: [1, 28] as const, replacement: { groupPrefix: 'networking', version: 'v1', kind: 'IPAddress' } } };
    const kind = { group: '', groupPrefix: 'networking', version: 'v1beta1', kind: 'IPAddress' };
    const n = naming('k8s.io');
    expect(builtinDeprecation(kind, 'networking.k8s.io', n.group, [1, 30], table)).toBeUndefined();
    expect(builtinDeprecation(kind, 'networking.k8s.io', n.group, [1, 32], table)).toEqual({
      warning: 'networking.k8s.io/v1beta1 IPAddress is deprecated in v1.31+, unavailable in v1.34+; use networking.k8s.io/v1 IPAddress',
      removedRelease: '1.34',
    });
    expect(() => builtinDeprecation({ ...kind, kind: 'Other' }, 'networking.k8s.io', n.group, [1, 32], table)).toThrow('no API lifecycle');
    expect(builtinDeprecation({ ...kind, version: 'v1' }, 'networking.k8s.io', n.group, [1, 32], table)).toBeUndefined();
  });

  it('states the lifecycle of every prerelease built-in; none is deprecated or removed in Kubernetes 1.32', () => {
    for (const domain of ['platform.io', 'k8s.io']) {
      const n = naming(domain);
      const prerelease = builtinKinds(n).filter((k) => isPrerelease(k.version));
      expect(prerelease.length).toBeGreaterThan(0);
      for (const k of prerelease) {
        const lifecycle = BUILTIN_LIFECYCLE[lifecycleKey(k)];
        expect({ kind: lifecycleKey(k), lifecycle }).toEqual({ kind: lifecycleKey(k), lifecycle: expect.anything() });
        expect(builtinDeprecation(k, groupOf(k, n), n.group)).toBeUndefined();
        const { removed } = lifecycleReleases(lifecycle!);
        expect(removed[0] > CURRENT_RELEASE[0] || removed[1] > CURRENT_RELEASE[1]).toBe(true);
      }
      // GA versions are never deprecated by age.
      for (const k of builtinKinds(n).filter((k) => !isPrerelease(k.version))) expect(builtinDeprecation(k, groupOf(k, n), n.group)).toBeUndefined();
    }
  });
});
