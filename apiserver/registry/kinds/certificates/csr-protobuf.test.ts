/**
 * CertificateSigningRequest in protobuf: encoded by the server's schema-driven codec and read back by
 * protobufjs with an independent description written from certificates/v1 generated.proto's numbers
 * (request and certificate as raw PEM bytes, extra as map<string, ExtraValue{items = 1}>,
 * expirationSeconds a pointer), and round-tripped through the server's decoder.
 */
import protobuf from 'protobufjs';
import type { KubeObject } from '../../../api/object.js';
import { decodeProtobuf, encodeMessage, objectProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import { certificateSigningRequests } from './certificatesigningrequest.js';

const PROTO = `
syntax = "proto2";
package c;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message ObjectMeta { optional string name = 1; }
message ExtraValue { repeated string items = 1; }
message Spec {
  optional bytes request = 1; optional string username = 2; optional string uid = 3; repeated string groups = 4;
  repeated string usages = 5; map<string, ExtraValue> extra = 6; optional string signerName = 7; optional int32 expirationSeconds = 8;
}
message Condition {
  optional string type = 1; optional string reason = 2; optional string message = 3; optional Time lastUpdateTime = 4;
  optional Time lastTransitionTime = 5; optional string status = 6;
}
message Status { repeated Condition conditions = 1; optional bytes certificate = 2; }
message CSR { optional ObjectMeta metadata = 1; optional Spec spec = 2; optional Status status = 3; }
`;
const type = protobuf.parse(PROTO).root.lookupType('c.CSR');

const REQUEST = '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n';
const csr: KubeObject = {
  apiVersion: 'certificates.platform.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'node-csr' },
  spec: {
    request: Buffer.from(REQUEST).toString('base64'),
    signerName: 'platform.io/apiserver-client-nodeagent',
    expirationSeconds: 3600,
    usages: ['digital signature', 'client auth'],
    username: 'system:node:n1',
    uid: 'u1',
    groups: ['system:nodes', 'system:authenticated'],
    extra: { scopes: ['a', 'b'], empty: [] },
  },
  status: {
    conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'ok', lastUpdateTime: '2025-01-02T03:04:05Z', lastTransitionTime: '2025-01-02T03:04:05Z' }],
    certificate: Buffer.from(CERT).toString('base64'),
  },
};

test('reads back from the independent description: raw PEM bytes, ExtraValue map, conditions', () => {
  const msg = type.toObject(type.decode(encodeMessage(certificateSigningRequests.schema, csr)), { longs: Number, defaults: false, bytes: String }) as Record<string, any>;
  expect(Buffer.from(msg.spec.request, 'base64').toString()).toBe(REQUEST);
  expect(msg.spec).toMatchObject({
    signerName: 'platform.io/apiserver-client-nodeagent',
    expirationSeconds: 3600,
    usages: ['digital signature', 'client auth'],
    username: 'system:node:n1',
    uid: 'u1',
    groups: ['system:nodes', 'system:authenticated'],
    extra: { scopes: { items: ['a', 'b'] }, empty: {} },
  });
  const t = { seconds: Date.parse('2025-01-02T03:04:05Z') / 1000, nanos: 0 };
  expect(msg.status.conditions).toEqual([{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'ok', lastUpdateTime: t, lastTransitionTime: t }]);
  expect(Buffer.from(msg.status.certificate, 'base64').toString()).toBe(CERT);
});

test('round-trips through the server codec', () => {
  const decoded = decodeProtobuf(objectProtobuf(certificateSigningRequests.schema, csr, undefined).bytes, certificateSigningRequests.schema);
  expect(decoded.unknown).toEqual([]);
  expect(decoded.value.spec).toEqual(csr.spec);
  expect(decoded.value.status).toEqual(csr.status);
});
