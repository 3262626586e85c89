import { startStoreReadiness } from '../../apiserver/server/store-readiness.js';

/** A probe the test answers by hand, and a clock the test moves. */
function harness() {
  let clock = 1_000_000;
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let probes = 0;
  const readiness = startStoreReadiness({
    probe: () => {
      probes++;
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
    intervalMs: 0,
    probeTimeoutMs: 60_000,
    graceMs: 5000,
    now: () => clock,
  });
  const nextProbe = async () => {
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    return pending.shift()!;
  };
  return {
    readiness,
    advance: (ms: number) => (clock += ms),
    nextProbe,
    probes: () => probes,
    verdict: () => readiness.check.check().then(() => 'ok', (e: Error) => e.message),
  };
}

describe('store readiness', () => {
  it('stays ready through failures shorter than the grace, fails past it, and recovers on the next success', async () => {
    const h = harness();
    try {
      expect(h.readiness.check.name).toBe('etcd');
      (await h.nextProbe()).resolve();
      // A hung probe: the check answers from the last success, without waiting for it.
      const hung = await h.nextProbe();
      h.advance(5000);
      expect(await h.verdict()).toBe('ok');
      h.advance(1);
      expect(await h.verdict()).toMatch(/^the store has been unreachable for 5001 ms/);
      // One probe at a time: the next starts only after the previous ended.
      expect(h.probes()).toBe(2);
      hung.reject(new Error('etcdserver: request timed out'));
      const next = await h.nextProbe();
      expect(h.probes()).toBe(3);
      expect(await h.verdict()).toMatch(/last error: Error: etcdserver: request timed out/);
      next.resolve();
      await h.nextProbe();
      expect(await h.verdict()).toBe('ok');
    } finally {
      h.readiness.stop();
    }
  });

  it('counts a probe slower than its deadline as a failure', async () => {
    let clock = 0;
    const errors: unknown[] = [];
    const readiness = startStoreReadiness({
      probe: () => new Promise<void>(() => undefined),
      probeTimeoutMs: 10,
      intervalMs: 60_000,
      graceMs: 100,
      now: () => clock,
      onProbeError: (err) => errors.push(err),
    });
    try {
      while (errors.length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(String(errors[0])).toBe('Error: store probe timed out after 10 ms');
      clock = 101;
      await expect(readiness.check.check()).rejects.toThrow(/unreachable for 101 ms/);
    } finally {
      readiness.stop();
    }
  });
});
