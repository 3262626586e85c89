/**
 * Whether the etcd members send a progress broadcast (the answer to a progress request) in order with the
 * watch events on the stream and only once every watcher on it has caught up, so that its revision is exact
 * for every watch there. etcd 3.4.25 and 3.5.8 made it so (etcd#15220); Kubernetes trusts it, for consistent
 * reads from its watch cache, from 3.4.31 and 3.5.13, the releases that fixed the rest of the progress
 * notification bugs, and so do we. Older members need each answer checked (watcher.ts, prefix-unchanged.ts).
 */
import type { EtcdConnectionTls } from './client-tls.js';
import { callOn, singleMember } from './grpc/members.js';
import type { RawStatusResponse } from './proto.js';

/** Whether etcd `version` ("3.5.13", "v3.6.0-rc.1") orders progress broadcasts; false when it cannot tell. */
export function ordersProgress(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (m === null) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/**
 * Whether every endpoint answers the Status call with a version that orders progress; a member that does
 * not answer within `timeoutMs` counts as one that does not (the checked path stays safe).
 */
export async function membersOrderProgress(
  endpoints: readonly string[],
  timeoutMs: number,
  tls: EtcdConnectionTls | undefined,
): Promise<boolean> {
  const versions = await memberVersions(endpoints, timeoutMs, tls);
  return versions.every((v) => v !== undefined && ordersProgress(v));
}

/**
 * Each endpoint's etcd version (undefined: no answer within `timeoutMs`), over a connection of its own: the
 * store's calls go to a random member each.
 */
export function memberVersions(
  endpoints: readonly string[],
  timeoutMs: number,
  tls: EtcdConnectionTls | undefined,
): Promise<(string | undefined)[]> {
  return Promise.all(
    endpoints.map(async (endpoint) => {
      const channel = singleMember(endpoint, tls);
      try {
        return (await callOn<RawStatusResponse>(channel, 'status', {}, Date.now() + timeoutMs)).version;
      } catch {
        return undefined;
      } finally {
        channel.close();
      }
    }),
  );
}
