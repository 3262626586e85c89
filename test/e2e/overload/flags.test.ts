/** The overload flags as `main` parses them: defaults, values, and kube's refusals. */
import { FlagError } from '../../../apiserver/config/flag-error.js';
import { parseFlags } from '../../../apiserver/config/parse-flags.js';
import { buildConfig } from '../../../apiserver/config/server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

describe('overload flags', () => {
  it('default to kube 1.32: 400 and 200 in flight, priority and fairness on, 60 s request and 1800 s watch timeouts', () => {
    const c = config();
    expect(c).toMatchObject({ maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, requestTimeoutMs: 60_000, minRequestTimeoutSeconds: 1800 });
    expect(c.enablePriorityAndFairness).toBeUndefined();
  });

  it('take values', () => {
    const c = config('--max-requests-inflight=20', '--max-mutating-requests-inflight=10', '--request-timeout=4s', '--min-request-timeout=0',
      '--enable-priority-and-fairness=false');
    expect(c).toMatchObject({ maxRequestsInflight: 20, maxMutatingRequestsInflight: 10, requestTimeoutMs: 4000, minRequestTimeoutSeconds: 0, enablePriorityAndFairness: false });
  });

  it.each([
    [['--min-request-timeout=-1'], '--min-request-timeout can not be negative value'],
    [['--max-requests-inflight=-1'], 'invalid value "-1" for flag --max-requests-inflight: must not be negative'],
    [['--request-timeout=0s'], 'invalid value for flag --request-timeout: must be positive'],
    [['--enable-priority-and-fairness=maybe'], 'invalid value "maybe" for flag --enable-priority-and-fairness'],
  ])('%j is refused', (argv, message) => {
    let err: unknown;
    try {
      config(...argv);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FlagError);
    expect((err as Error).message).toContain(message);
  });
});
