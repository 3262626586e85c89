/**
 * The one conformance suite every Store backend runs (`test/storage/conformance.test.ts` loops over the
 * backends). It tests the contract in `storage/interface.ts` only, through the public interface.
 *
 * One store serves the whole suite; each case works under its own key prefix and asserts only on
 * revisions it produced itself, so cases stay independent although they share the revision counter (and,
 * on etcd, compaction).
 */
import type { Store } from '../interface.js';
import type { SuiteContext } from './helpers.js';
import { defineReadWriteCases } from './cases/read-write.js';
import { defineListCases } from './cases/list.js';
import { defineTxnCases } from './cases/txn.js';
import { defineWatchCases } from './cases/watch.js';
import { defineCompactionCases } from './cases/compaction.js';
import { defineConcurrencyCases } from './cases/concurrency.js';
import { defineTtlCases } from './cases/ttl.js';
import { defineCloseCases } from './cases/close.js';

export interface StoreUnderTest {
  /** Opens the store the suite runs against (once, before all cases). */
  open(): Promise<Store>;
  /** Called after all cases, after `store.close()`: stop processes, remove directories. */
  cleanup?(): Promise<void>;
}

export function describeStoreConformance(name: string, backend: StoreUnderTest): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store | undefined;
    let caseNo = 0;
    const ctx: SuiteContext = {
      store: () => {
        if (store === undefined) throw new Error('store not open');
        return store;
      },
      prefix: () => `/conformance/${Date.now().toString(36)}-${++caseNo}/`,
    };

    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup?.();
    });

    defineReadWriteCases(ctx);
    defineListCases(ctx);
    defineTxnCases(ctx);
    defineWatchCases(ctx);
    defineCompactionCases(ctx);
    defineConcurrencyCases(ctx);
    defineTtlCases(ctx);
    // Last: it closes the store.
    defineCloseCases(ctx);
  });
}
