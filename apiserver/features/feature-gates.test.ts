import { FeatureGateError, defaultFeatureGates, featureGateHelpLines, featureGates, resolveFeatureGates } from './feature-gates.js';
import { featureGateTable } from './gates.js';

const resolve = (entries: [string, boolean][]) => resolveFeatureGates(new Map(entries));
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(FeatureGateError);
    return (err as Error).message;
  }
  throw new Error('expected a FeatureGateError');
};

describe('the gate table', () => {
  it('has one entry per name, GA gates locked, and the documents\' stages and defaults', () => {
    const names = featureGateTable.map((g) => g.name);
    expect(new Set(names).size).toBe(names.length);
    for (const g of featureGateTable) if (g.stage === 'GA') expect(g).toMatchObject({ default: true, lockToDefault: true });
    const get = (n: string) => featureGateTable.find((g) => g.name === n);
    expect(get('WatchList')).toEqual({ name: 'WatchList', stage: 'BETA', default: false, lockToDefault: false });
    expect(get('CBORServingAndStorage')).toEqual({ name: 'CBORServingAndStorage', stage: 'ALPHA', default: false, lockToDefault: false });
    expect(get('APIResponseCompression')).toEqual({ name: 'APIResponseCompression', stage: 'BETA', default: true, lockToDefault: false });
    expect(get('RemainingItemCount')).toMatchObject({ stage: 'GA', lockToDefault: true });
  });
});

describe('resolveFeatureGates', () => {
  it('starts from the defaults', () => {
    expect(defaultFeatureGates.enabled('WatchList')).toBe(false);
    expect(defaultFeatureGates.enabled('CBORServingAndStorage')).toBe(false);
    expect(defaultFeatureGates.enabled('APIResponseCompression')).toBe(true);
    expect(defaultFeatureGates.enabled('ConsistentListFromCache')).toBe(true);
    expect(defaultFeatureGates.warnings).toEqual([]);
  });

  it('applies settings and keeps the others at their defaults', () => {
    const g = resolve([['WatchList', true], ['APIResponseCompression', false]]);
    expect(g.enabled('WatchList')).toBe(true);
    expect(g.enabled('APIResponseCompression')).toBe(false);
    expect(g.enabled('ConsistentListFromCache')).toBe(true);
    expect([...g.explicit]).toEqual([['WatchList', true], ['APIResponseCompression', false]]);
  });

  it('refuses an unknown gate with kube\'s message', () => {
    expect(errorOf(() => resolve([['WatchList', true], ['NoSuchGate', true]]))).toBe('unrecognized feature gate: NoSuchGate');
    // Names are case-sensitive, as in kube.
    expect(errorOf(() => resolve([['watchlist', true]]))).toBe('unrecognized feature gate: watchlist');
  });

  it('refuses a locked gate set away from its default, and accepts its default with a warning', () => {
    expect(errorOf(() => resolve([['RemainingItemCount', false]]))).toBe('cannot set feature gate RemainingItemCount to false, feature is locked to true');
    expect(errorOf(() => resolve([['RemainingItemCount', false], ['WatchBookmark', false]]))).toBe(
      '[cannot set feature gate RemainingItemCount to false, feature is locked to true, cannot set feature gate WatchBookmark to false, feature is locked to true]',
    );
    const g = resolve([['RemainingItemCount', true], ['KMSv1', true]]);
    expect(g.warnings).toEqual([
      'Setting GA feature gate RemainingItemCount=true. It will be removed in a future release.',
      'Setting deprecated feature gate KMSv1=true. It will be removed in a future release.',
    ]);
  });

  it('AllAlpha and AllBeta set the gates of their stage not set explicitly, in any order', () => {
    const a = resolve([['CBORServingAndStorage', false], ['AllAlpha', true]]);
    expect(a.enabled('CBORServingAndStorage')).toBe(false);
    expect(a.enabled('StorageVersionAPI')).toBe(true);
    expect(a.enabled('WatchList')).toBe(false); // beta: untouched
    const b = resolve([['AllBeta', false], ['WatchList', true]]);
    expect(b.enabled('APIResponseCompression')).toBe(false);
    expect(b.enabled('ConsistentListFromCache')).toBe(false);
    expect(b.enabled('WatchList')).toBe(true);
    expect(b.enabled('RemainingItemCount')).toBe(true); // GA: untouched
  });

  it('featureGates is the typed shorthand', () => {
    expect(featureGates({ WatchList: true }).enabled('WatchList')).toBe(true);
  });
});

describe('featureGateHelpLines', () => {
  it('lists alpha and beta gates as kube does, sorted, GA and deprecated hidden', () => {
    const lines = featureGateHelpLines();
    expect(lines).toContain('kube:AllAlpha=true|false (ALPHA - default=false)');
    expect(lines).toContain('kube:AllBeta=true|false (BETA - default=false)');
    expect(lines).toContain('kube:APIResponseCompression=true|false (BETA - default=true)');
    expect(lines).toContain('kube:CBORServingAndStorage=true|false (ALPHA - default=false)');
    expect(lines).toContain('kube:WatchList=true|false (BETA - default=false)');
    expect(lines.some((l) => l.includes('RemainingItemCount') || l.includes('KMSv1'))).toBe(false);
    expect([...lines].sort()).toEqual(lines);
  });
});
