import { builtinKinds } from './index.js';

test('every built-in kind once, with distinct resources and short names', () => {
  const kinds = builtinKinds();
  expect(kinds.map((k) => `${k.groupPrefix ?? k.group}/${k.kind}`)).toEqual([
    '/ConfigMap',
    '/Event',
    '/Namespace',
    '/Node',
    '/Pod',
    '/Binding',
    '/PodTemplate',
    '/Secret',
    '/ServiceAccount',
    '/Service',
    'events/Event',
    'rbac/ClusterRoleBinding',
    'rbac/ClusterRole',
    'rbac/RoleBinding',
    'rbac/Role',
    'apiextensions/CustomResourceDefinition',
    'apiregistration/APIService',
    'admissionregistration/ValidatingAdmissionPolicy',
    'admissionregistration/ValidatingAdmissionPolicyBinding',
    'coordination/Lease',
    'discovery/EndpointSlice',
    'storage/StorageClass',
    'storage/VolumeAttachment',
    'batch/Job',
    'apps/StatefulSet',
    'apps/ControllerRevision',
    '/PersistentVolumeClaim',
    '/ReplicationController',
    'autoscaling/HorizontalPodAutoscaler',
    'certificates/CertificateSigningRequest',
    'networking/ServiceCIDR',
    'networking/IPAddress',
    'authentication/SelfSubjectReview',
    'authentication/TokenReview',
    'authorization/LocalSubjectAccessReview',
    'authorization/SelfSubjectAccessReview',
    'authorization/SelfSubjectRulesReview',
    'authorization/SubjectAccessReview',
  ]);
  const resources = kinds.map((k) => `${k.groupPrefix ?? k.group}/${k.resource}`);
  expect(new Set(resources).size).toBe(resources.length);
  // A view of another kind's objects shares its short names (`ev` for both Event kinds, as Kubernetes).
  const shortNames = kinds.filter((k) => k.storedAs === undefined).flatMap((k) => k.shortNames ?? []);
  expect(new Set(shortNames).size).toBe(shortNames.length);
  for (const k of kinds) if (k.storedAs !== undefined) expect(k.shortNames).toEqual(k.storedAs.kind.shortNames);
  expect(Object.isFrozen(kinds)).toBe(true);
});

test('a view is stored as a listed kind of the same scope', () => {
  const kinds = builtinKinds();
  for (const k of kinds.filter((x) => x.storedAs !== undefined)) {
    expect(kinds).toContain(k.storedAs!.kind);
    expect(k.namespaced).toBe(k.storedAs!.kind.namespaced);
  }
});

test('each schema wraps apiVersion, kind and metadata', () => {
  for (const k of builtinKinds()) {
    expect(Object.keys(k.schema.properties ?? {}).slice(0, 3)).toEqual(['apiVersion', 'kind', 'metadata']);
  }
});
