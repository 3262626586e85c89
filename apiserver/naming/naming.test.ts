import { naming } from './naming.js';

test('platform.io names', () => {
  const n = naming('platform.io');
  expect(n.group('certificates')).toBe('certificates.platform.io');
  expect(n.group('rbac')).toBe('rbac.platform.io');
  expect(n.systemNamespace).toBe('platform-system');
  expect(n.publicNamespace).toBe('platform-public');
  expect(n.extension('list-type')).toBe('x-platform-list-type');
  expect(n.key('deprecated')).toBe('platform.io/deprecated');
  expect(n.protobufMediaType).toBe('application/vnd.platform.protobuf');
  expect(n.legacyDomain).toBe('platform.io');
  expect(n.nodeAgent).toBe('nodeagent');
});

test('k8s.io switches to Kubernetes names', () => {
  const n = naming('k8s.io');
  expect(n.group('certificates')).toBe('certificates.k8s.io');
  expect(n.group('rbac')).toBe('rbac.authorization.k8s.io');
  expect(n.group('authorization')).toBe('authorization.k8s.io');
  expect(n.systemNamespace).toBe('kube-system');
  expect(n.publicNamespace).toBe('kube-public');
  expect(n.extension('list-type')).toBe('x-kubernetes-list-type');
  expect(n.key('deprecated')).toBe('k8s.io/deprecated');
  expect(n.protobufMediaType).toBe('application/vnd.kubernetes.protobuf');
  expect(n.legacyDomain).toBe('kubernetes.io');
  expect(n.nodeAgent).toBe('kubelet');
});
