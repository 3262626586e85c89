/**
 * etcd's database size per member: the Status call's `dbSize` (bytes physically allocated by the member's
 * bolt file). One connection per endpoint, separate from the store's, so each reading names its member
 * (the store's calls go to a random one each).
 */
import type { StorageSize, StoreSizeMonitor } from '../size-monitor.js';
import { etcdClientCredentials, type EtcdClientTls } from './client-tls.js';
import { callOn, singleMember } from './grpc/members.js';
import type { MemberChannel } from './grpc/member-channel.js';
import type { RawStatusResponse } from './proto.js';

/** `tls`: the store's client TLS (client-tls.ts), read when the clients are first opened. */
export function etcdSizeMonitor(endpoints: readonly string[], timeoutMs: number, tls?: EtcdClientTls): StoreSizeMonitor {
  let clients: { readonly endpoint: string; readonly client: MemberChannel }[] | undefined;
  let closed = false;
  const open = (): NonNullable<typeof clients> => {
    if (clients !== undefined) return clients;
    const credentials = etcdClientCredentials(endpoints, tls);
    clients = endpoints.map((endpoint) => ({ endpoint, client: singleMember(endpoint, credentials) }));
    return clients;
  };
  return {
    async sample() {
      if (closed) return [];
      let opened: NonNullable<typeof clients>;
      try {
        opened = open();
      } catch {
        return []; // TLS files gone since start-up: no reading, as for unreachable members
      }
      const readings = await Promise.all(
        opened.map(async ({ endpoint, client }): Promise<StorageSize | undefined> => {
          try {
            const status = await callOn<RawStatusResponse>(client, 'status', {}, Date.now() + timeoutMs);
            return { endpoint, bytes: status.dbSize };
          } catch {
            return undefined;
          }
        }),
      );
      return readings.filter((r): r is StorageSize => r !== undefined);
    },
    async close() {
      closed = true;
      for (const { client } of clients ?? []) client.close();
      clients = undefined;
    },
  };
}
