/**
 * The local HA cluster launcher (see launcher.ts): `startCluster({dir, replicas, etcdMembers})` returns
 * handles to stop, kill, restart and pause each etcd member, replica and haproxy, with the load balancer's
 * URL, the admin token and the CA.
 */
export {
  clusterExists, openCluster, startCluster, stopClusterDir,
  type Cluster, type ClusterOptions, type ClusterProcess, type EtcdMemberProcess, type HaproxyProcess, type ReplicaProcess,
} from './launcher.js';
export { healthCheck, type BackendState } from './haproxy.js';
export { clusterValuesFile } from './replica-args.js';
