/**
 * The RBAC kinds in protobuf: a RoleBinding hand-assembled from rbac/v1 generated.proto's numbers decodes
 * to the JSON shape, and every bootstrap object round-trips through the server's encoder and decoder.
 */
import { objectProtobuf, decodeProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import { naming } from '../../../naming/naming.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { clusterRoleBindings } from './clusterrolebinding.js';
import { clusterRoles } from './clusterrole.js';
import { roleBindings } from './rolebinding.js';

const len = (tag: number, payload: number[]): number[] => [tag, payload.length, ...payload];
const str = (tag: number, s: string): number[] => len(tag, [...Buffer.from(s)]);
const varint = (n: number): number[] => (n > 127 ? [(n & 127) | 128, ...varint(n >>> 7)] : [n]);
const envelope = (apiVersion: string, kind: string, raw: number[]): Buffer =>
  Buffer.from([0x6b, 0x38, 0x73, 0x00, ...len(0x0a, [...str(0x0a, apiVersion), ...str(0x12, kind)]), 0x12, ...varint(raw.length), ...raw, 0x1a, 0x00, 0x22, 0x00]);

test('a RoleBinding from the field-number table: subjects = 2 (kind 1, apiGroup 2, name 3, namespace 4), roleRef = 3', () => {
  const G = 'rbac.authorization.k8s.io';
  const raw = [
    ...len(0x0a, [...str(0x0a, 'rb'), ...str(0x1a, 'team')]),
    ...len(0x12, [...str(0x0a, 'ServiceAccount'), ...str(0x1a, 'builder'), ...str(0x22, 'team')]),
    ...len(0x12, [...str(0x0a, 'User'), ...str(0x12, G), ...str(0x1a, 'alice')]),
    ...len(0x1a, [...str(0x0a, G), ...str(0x12, 'Role'), ...str(0x1a, 'reader')]),
  ];
  const d = decodeProtobuf(envelope(`${G}/v1`, 'RoleBinding', raw), roleBindings.schema);
  expect(d.value).toEqual({
    metadata: { name: 'rb', namespace: 'team' },
    subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'team' }, { kind: 'User', apiGroup: G, name: 'alice' }],
    roleRef: { apiGroup: G, kind: 'Role', name: 'reader' },
  });
  expect(d.unknown).toEqual([]);
});

test('the bootstrap roles and bindings round-trip (rules, URLs, aggregation selectors)', () => {
  const policy = bootstrapPolicy(naming('k8s.io'));
  for (const [objects, schema] of [[policy.clusterRoles, clusterRoles.schema], [policy.clusterRoleBindings, clusterRoleBindings.schema]] as const) {
    for (const obj of objects) {
      const { bytes } = objectProtobuf(schema, obj, undefined);
      const back = decodeProtobuf(bytes, schema);
      const { apiVersion: _a, kind: _k, ...rest } = obj;
      expect(back.value).toEqual(rest);
    }
  }
});
