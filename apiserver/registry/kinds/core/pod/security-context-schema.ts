/** Schemas of the security settings: the container `securityContext` and the pod `securityContext`. */
import type { Schema } from '../../../../schema/schema.js';
import { atomicList, bool, int64, obj, ptr, requiredStr, str, stringList } from './schema-builders.js';

const seLinuxOptionsSchema: Schema = obj('SELinux labels applied to the container.', {
  level: str('SELinux level label.'),
  role: str('SELinux role label.'),
  type: str('SELinux type label.'),
  user: str('SELinux user label.'),
}, undefined, { protobuf: { user: 1, role: 2, type: 3, level: 4 } });

const seccompProfileSchema: Schema = obj(
  'A seccomp profile; exactly one source.',
  {
    localhostProfile: str('Profile file on the node, relative to the kubelet seccomp directory; only with type Localhost.'),
    type: requiredStr('Localhost, RuntimeDefault or Unconfined.'),
  },
  ['type'],
  { protobuf: { type: 1, localhostProfile: ptr(2) } },
);

const appArmorProfileSchema: Schema = obj(
  'An AppArmor profile.',
  {
    localhostProfile: str('Profile loaded on the node; only with type Localhost.'),
    type: requiredStr('Localhost, RuntimeDefault or Unconfined.'),
  },
  ['type'],
  { protobuf: { type: 1, localhostProfile: ptr(2) } },
);

const windowsOptionsSchema: Schema = obj('Windows-specific settings.', {
  gmsaCredentialSpec: str('Contents of the GMSA credential spec.'),
  gmsaCredentialSpecName: str('Name of the GMSA credential spec to use.'),
  hostProcess: bool('Run as a Windows host process container.'),
  runAsUserName: str('User name that runs the entrypoint.'),
}, undefined, { protobuf: { gmsaCredentialSpecName: ptr(1), gmsaCredentialSpec: ptr(2), runAsUserName: ptr(3), hostProcess: ptr(4) } });

const capabilitiesSchema: Schema = obj('POSIX capabilities added to or dropped from the container.', {
  add: stringList('Capabilities to add.'),
  drop: stringList('Capabilities to drop.'),
}, undefined, { protobuf: { add: 1, drop: 2 } });

export const securityContextSchema: Schema = obj('Security settings of a container; they override the pod ones.', {
  allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent (no_new_privs).'),
  appArmorProfile: appArmorProfileSchema,
  capabilities: capabilitiesSchema,
  privileged: bool('Run as privileged (root on the host); defaults to false.'),
  procMount: str('Default or Unmasked proc mount.'),
  readOnlyRootFilesystem: bool('Mount the root filesystem read-only; defaults to false.'),
  runAsGroup: int64('GID of the entrypoint process.'),
  runAsNonRoot: bool('Require the container to run as a non-root user.'),
  runAsUser: int64('UID of the entrypoint process.'),
  seLinuxOptions: seLinuxOptionsSchema,
  seccompProfile: seccompProfileSchema,
  windowsOptions: windowsOptionsSchema,
}, undefined, {
  protobuf: {
    capabilities: ptr(1), privileged: ptr(2), seLinuxOptions: ptr(3), runAsUser: ptr(4), runAsNonRoot: ptr(5), readOnlyRootFilesystem: ptr(6),
    allowPrivilegeEscalation: ptr(7), runAsGroup: ptr(8), procMount: ptr(9), windowsOptions: ptr(10), seccompProfile: ptr(11),
    appArmorProfile: ptr(12),
  },
});

const sysctlSchema: Schema = obj('A kernel parameter.', { name: requiredStr('Name of the parameter.'), value: requiredStr('Value of the parameter.') }, ['name', 'value'], {
  protobuf: { name: 1, value: 2 },
});

export const podSecurityContextSchema: Schema = obj('Pod-level security settings and defaults for its containers.', {
  appArmorProfile: appArmorProfileSchema,
  fsGroup: int64('Supplemental group that owns the volumes that support ownership management.'),
  fsGroupChangePolicy: str('OnRootMismatch or Always: when volume ownership is changed.'),
  runAsGroup: int64('GID of the entrypoint of every container.'),
  runAsNonRoot: bool('Require containers to run as a non-root user.'),
  runAsUser: int64('UID of the entrypoint of every container.'),
  seLinuxChangePolicy: str('How SELinux labels are applied to volumes: Recursive or MountOption.'),
  seLinuxOptions: seLinuxOptionsSchema,
  seccompProfile: seccompProfileSchema,
  supplementalGroups: atomicList({ type: 'integer', format: 'int64', default: 0 }, 'Groups added to the first process of every container.'),
  supplementalGroupsPolicy: str('Merge or Strict: how supplemental groups are computed.'),
  sysctls: atomicList({ ...sysctlSchema, default: {} }, 'Namespaced sysctls of the pod.'),
  windowsOptions: windowsOptionsSchema,
}, undefined, {
  protobuf: {
    seLinuxOptions: ptr(1), runAsUser: ptr(2), runAsNonRoot: ptr(3), supplementalGroups: 4, fsGroup: ptr(5), runAsGroup: ptr(6), sysctls: 7,
    windowsOptions: ptr(8), fsGroupChangePolicy: ptr(9), seccompProfile: ptr(10), appArmorProfile: ptr(11), supplementalGroupsPolicy: ptr(12),
    seLinuxChangePolicy: ptr(13),
  },
});
