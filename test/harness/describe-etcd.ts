import { etcdAvailable } from './etcd.js';

/**
 * `describe` for suites that need a real etcd: skipped on a developer machine without the binary, never
 * under CI (`CI` set), where a missing etcd makes the harness throw and the suite fail.
 */
export const describeEtcd: jest.Describe = etcdAvailable() || process.env.CI ? describe : describe.skip;

/** Every revision in [from, to] exactly once, in order: the delivered revisions must equal this. */
export function revisionsBetween(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
