import { StatusError } from '../errors/status-error.js';
import { decodeDeleteOptions } from './delete-options.js';
import { parseListOptions, parseWriteOptions, queryBool, queryInt64, queryOptionalBool } from './query.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('scalar parameters', () => {
  it('reads booleans by the Kubernetes rule', () => {
    expect(queryBool(q(''), 'watch')).toBe(false);
    expect(queryBool(q('watch=True'), 'watch')).toBe(true);
    expect(queryBool(q('watch=0'), 'watch')).toBe(false);
    expect(queryOptionalBool(q(''), 'x')).toBeUndefined();
    expect(queryOptionalBool(q('x=false'), 'x')).toBe(false);
  });

  it('reads int64 with Go messages', () => {
    expect(queryInt64(q(''), 'limit')).toBeUndefined();
    expect(queryInt64(q('limit=500'), 'limit')).toBe(500);
    expect(queryInt64(q('limit=-1'), 'limit')).toBe(-1);
    expect(queryInt64(q('limit=%2B7'), 'limit')).toBe(7);
    for (const [v, msg] of [
      ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ] as const) {
      const e = status(() => queryInt64(q(`limit=${encodeURIComponent(v)}`), 'limit'));
      expect(e.code).toBe(400);
      expect(e.message).toBe(msg);
    }
  });
});

describe('parseWriteOptions', () => {
  it('defaults', () => {
    expect(parseWriteOptions(q(''), 'CreateOptions')).toEqual({ dryRun: false, fieldManager: '', fieldValidation: 'Warn' });
  });

  it('reads kubectl create options', () => {
    expect(parseWriteOptions(q('fieldManager=kubectl-create&fieldValidation=Strict&dryRun=All'), 'CreateOptions')).toEqual({
      dryRun: true,
      fieldManager: 'kubectl-create',
      fieldValidation: 'Strict',
    });
    expect(parseWriteOptions(q('fieldManager=kubectl&force=true'), 'PatchOptions', true).force).toBe(true);
  });

  it('rejects bad values with a 422 against the options kind', () => {
    const e = status(() => parseWriteOptions(q('dryRun=Foo'), 'CreateOptions'));
    expect(e.code).toBe(422);
    expect(e.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"');
    expect(e.details?.causes).toEqual([{ reason: 'FieldValueNotSupported', field: 'dryRun', message: 'Unsupported value: []string{"Foo"}: supported values: "All"' }]);
    expect(status(() => parseWriteOptions(q('dryRun=All&dryRun=x'), 'UpdateOptions')).message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"',
    );
    expect(status(() => parseWriteOptions(q('fieldValidation=strict'), 'PatchOptions')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
    expect(status(() => parseWriteOptions(q(`fieldManager=${'m'.repeat(129)}`), 'CreateOptions')).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    expect(status(() => parseWriteOptions(q('fieldManager=a%07b'), 'CreateOptions')).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\u0007b": invalid character U+0007 (at position 1)',
    );
  });

  it('checks force and fieldManager for patches', () => {
    expect(status(() => parseWriteOptions(q('force=true'), 'PatchOptions')).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect(status(() => parseWriteOptions(q('dryRun=x'), 'PatchOptions', true)).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, dryRun: Unsupported value: []string{"x"}: supported values: "All"]',
    );
  });
});

describe('parseListOptions', () => {
  const on = { watchListEnabled: true };
  it('reads a kubectl list and a watch', () => {
    const list = parseListOptions(q('limit=500&labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dx&resourceVersion=0'), on);
    expect(list.limit).toBe(500);
    expect(list.watch).toBe(false);
    expect(list.labelSelector.toString()).toBe('app=web');
    expect(list.fieldSelector.toString()).toBe('metadata.name=x');
    expect(list.resourceVersion).toBe('0');
    const w = parseListOptions(q('allowWatchBookmarks=true&resourceVersion=12&timeoutSeconds=300&watch=true'), on);
    expect(w).toMatchObject({ watch: true, allowWatchBookmarks: true, resourceVersion: '12', timeoutSeconds: 300, limit: 0, continue: '' });
    expect(parseListOptions(q(''), { forceWatch: true, watchListEnabled: false }).watch).toBe(true);
    const stream = parseListOptions(q('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'), on);
    expect(stream.sendInitialEvents).toBe(true);
    expect(stream.resourceVersionMatch).toBe('NotOlderThan');
  });

  it('rejects bad selectors and numbers with 400', () => {
    expect(status(() => parseListOptions(q('labelSelector=a%20b'), on)).code).toBe(400);
    expect(status(() => parseListOptions(q('fieldSelector=a'), on)).message).toBe("invalid selector: 'a'; can't understand 'a'");
    expect(status(() => parseListOptions(q('timeoutSeconds=x'), on)).code).toBe(400);
  });

  it.each([
    ['resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ['resourceVersionMatch=Exact&resourceVersion=0', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ['resourceVersionMatch=Foo&resourceVersion=5', 'resourceVersionMatch: Unsupported value: "Foo": supported values: "Exact", "NotOlderThan", ""'],
    ['resourceVersionMatch=Exact&resourceVersion=5&continue=abc', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
    ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['watch=1&sendInitialEvents=true', 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    ['watch=1&resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    [
      'watch=1&sendInitialEvents=true&resourceVersionMatch=Exact',
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ])('%s is a 422', (query, detail) => {
    const e = status(() => parseListOptions(q(query), on));
    expect(e.code).toBe(422);
    expect(e.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${detail}`);
  });

  it('forbids sendInitialEvents on a watch when the WatchList gate is off, with the other causes', () => {
    const off = { watchListEnabled: false };
    expect(status(() => parseListOptions(q('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'), off)).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    );
    expect(status(() => parseListOptions(q('watch=1&sendInitialEvents=false'), off)).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, '
        + 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]',
    );
    // Lists refuse the parameter whatever the gate; a watch without it is unaffected.
    expect(status(() => parseListOptions(q('sendInitialEvents=true'), off)).message).toContain('sendInitialEvents is forbidden for list');
    expect(parseListOptions(q('watch=1&resourceVersion=5'), off).resourceVersion).toBe('5');
  });
});

describe('decodeDeleteOptions', () => {
  it('reads the query when there is no body', () => {
    expect(decodeDeleteOptions(q(''), undefined)).toEqual({ dryRun: false });
    expect(decodeDeleteOptions(q('gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All'), undefined)).toEqual({
      dryRun: true,
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
    });
    expect(status(() => decodeDeleteOptions(q('gracePeriodSeconds=soon'), undefined)).message).toBe('strconv.ParseInt: parsing "soon": invalid syntax');
  });

  it('reads the body and ignores the query then', () => {
    expect(decodeDeleteOptions(q('dryRun=All&propagationPolicy=Orphan'), { propagationPolicy: 'Background' })).toEqual({
      dryRun: false,
      propagationPolicy: 'Background',
    });
    expect(
      decodeDeleteOptions(q(''), {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        dryRun: ['All'],
        gracePeriodSeconds: 30,
        preconditions: { uid: 'u-1', resourceVersion: '42' },
        orphanDependents: null,
      }),
    ).toEqual({ dryRun: true, gracePeriodSeconds: 30, preconditions: { uid: 'u-1', resourceVersion: '42' } });
    expect(decodeDeleteOptions(q(''), { apiVersion: 'apps/v1', kind: 'DeleteOptions', orphanDependents: true }).orphanDependents).toBe(true);
  });

  it('rejects bodies that are not DeleteOptions with 400', () => {
    for (const body of [[], 'x', null, { kind: 'Pod' }]) {
      const e = status(() => decodeDeleteOptions(q(''), body));
      expect(e.code).toBe(400);
      expect(e.message).toBe('decoded object cannot be converted to DeleteOptions');
    }
    expect(status(() => decodeDeleteOptions(q(''), { gracePeriodSeconds: '5' })).message).toBe(
      'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    );
    expect(status(() => decodeDeleteOptions(q(''), { gracePeriodSeconds: 1.5 })).code).toBe(400);
    expect(status(() => decodeDeleteOptions(q(''), { dryRun: 'All' })).message).toBe(
      'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string',
    );
    expect(status(() => decodeDeleteOptions(q(''), { preconditions: { uid: 5 } })).message).toBe(
      'json: cannot unmarshal number into Go struct field DeleteOptions.preconditions.uid of type types.UID',
    );
  });

  it('validates with a 422 against DeleteOptions', () => {
    expect(status(() => decodeDeleteOptions(q(''), { propagationPolicy: 'Later' })).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(status(() => decodeDeleteOptions(q(''), { propagationPolicy: 'Orphan', orphanDependents: true })).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    const e = status(() => decodeDeleteOptions(q('dryRun=Yes'), undefined));
    expect(e.code).toBe(422);
    expect(e.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"');
  });
});
