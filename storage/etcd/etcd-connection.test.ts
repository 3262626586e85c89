/**
 * The etcd backend reaches into etcd3's protected connection pool: the version it was written against is
 * pinned, and a client without the expected pool fails at construction with a message naming that version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { ETCD3_VERSION, EtcdConnection, poolOf } from './etcd-connection.js';

const root = join(__dirname, '..', '..');
const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, path), 'utf8')) as Record<string, unknown>;

describe('etcd3 connection pool', () => {
  test('package.json pins etcd3 to exactly the version the pool access is written against, and it is installed', () => {
    expect((json('package.json').dependencies as Record<string, string>).etcd3).toBe(ETCD3_VERSION);
    const lock = json('package-lock.json').packages as Record<string, { version?: string }>;
    expect(lock['node_modules/etcd3']?.version).toBe(ETCD3_VERSION);
    expect(json('node_modules/etcd3/package.json').version).toBe(ETCD3_VERSION);
  });

  test('the installed etcd3 has the pool with the expected methods (a connection opens without dialling)', () => {
    const client = new Etcd3({ hosts: ['127.0.0.1:1'] });
    try {
      const pool = poolOf(client);
      expect(typeof pool.withConnection).toBe('function');
    } finally {
      client.close();
    }
    new EtcdConnection({ endpoints: ['127.0.0.1:1'], callTimeoutMs: 100 }).close();
  });

  test('a client without the pool, or with one of another shape, fails with a message naming the version', () => {
    expect(() => poolOf({})).toThrow(`the etcd3 client library has no usable connection pool (its protected member \`pool\` is missing): the etcd backend is written against etcd3 ${ETCD3_VERSION} exactly`);
    expect(() => poolOf({ pool: { withConnection: () => undefined, close: () => undefined } })).toThrow(/`pool` lacks markFailed\): .*etcd3 1\.1\.2 exactly/);
  });
});
