/**
 * The schema of CertificateSigningRequest (`certificates.<domain>/v1`) with the field numbers of
 * `k8s.io/api/certificates/v1/generated.proto` (CertificateSigningRequest, -Spec, -Status, -Condition,
 * ExtraValue as `map<string, ExtraValue{items = 1}>`). `request` and `status.certificate` are bytes (raw PEM
 * in protobuf, base64 in JSON, YAML).
 *
 * On purpose, `spec.request` and `spec.signerName` are not listed as required (Kubernetes' OpenAPI lists
 * them): a missing one reaches the kind's validation and fails with Kubernetes' own messages
 * (`PEM block type must be CERTIFICATE REQUEST`, `spec.signerName: Required value`).
 */
import type { Schema } from '../../../schema/schema.js';
import { ptr } from '../../../schema/schema.js';
import { int32, keyedList, obj, requiredStr, str, stringList, time } from '../shared/schema-builders.js';

const bytes = (description: string): Schema => ({ type: 'string', format: 'byte', description, 'x-kubernetes-list-type': 'atomic' });

const conditionSchema: Schema = obj(
  'CertificateSigningRequestCondition describes a condition of a CertificateSigningRequest object',
  {
    lastTransitionTime: time('lastTransitionTime is the time the condition last transitioned from one status to another. If unset, when a new condition type is added or an existing condition\'s status is changed, the server defaults this to the current time.'),
    lastUpdateTime: time('lastUpdateTime is the time of the last update to this condition'),
    message: str('message contains a human readable message with details about the request state'),
    reason: str('reason indicates a brief reason for the request state'),
    status: requiredStr('status of the condition, one of True, False, Unknown. Approved, Denied, and Failed conditions may not be "False" or "Unknown".'),
    type: requiredStr('type of the condition. Known conditions are "Approved", "Denied", and "Failed".'),
  },
  // Not `required` here: a missing type or status reaches the kind's validation (Kubernetes' messages once).
  undefined,
  { protobuf: { type: 1, reason: 2, message: 3, lastUpdateTime: 4, lastTransitionTime: 5, status: 6 } },
);

const specSchema: Schema = obj(
  'CertificateSigningRequestSpec contains the certificate request.',
  {
    expirationSeconds: int32('expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration. The minimum valid value for expirationSeconds is 600, i.e. 10 minutes.'),
    extra: {
      type: 'object',
      description: 'extra contains extra attributes of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.',
      additionalProperties: stringList('ExtraValue masks the value so protobuf can generate'),
    },
    groups: stringList('groups contains group membership of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.'),
    request: bytes('request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.'),
    signerName: str('signerName indicates the requested signer, and is a qualified name. List/watch requests for CertificateSigningRequests can filter on this field using a "spec.signerName=NAME" fieldSelector.'),
    uid: str('uid contains the uid of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.'),
    usages: stringList('usages specifies a set of key usages requested in the issued certificate. Requests for TLS client certificates typically request: "digital signature", "key encipherment", "client auth". Requests for TLS serving certificates typically request: "key encipherment", "digital signature", "server auth".'),
    username: str('username contains the name of the user that created the CertificateSigningRequest. Populated by the API server on creation and immutable.'),
  },
  undefined,
  { protobuf: { request: 1, username: 2, uid: 3, groups: 4, usages: 5, extra: 6, signerName: 7, expirationSeconds: ptr(8) } },
);

const statusSchema: Schema = obj(
  'CertificateSigningRequestStatus contains conditions used to indicate approved/denied/failed status of the request, and the issued certificate.',
  {
    certificate: bytes('certificate is populated with an issued certificate by the signer after an Approved condition is present. This field is set via the /status subresource. Once populated, this field is immutable. The certificate is one or more PEM blocks labelled "CERTIFICATE", without headers.'),
    conditions: keyedList(conditionSchema, 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".', ['type']),
  },
  undefined,
  { protobuf: { conditions: 1, certificate: 2 } },
);

export const CSR_PROPERTIES: Record<string, Schema> = {
  spec: { ...specSchema, description: 'spec contains the certificate request, and is immutable after creation. Only the request, signerName, expirationSeconds, and usages fields can be set on creation. Other fields are derived by Kubernetes and cannot be modified by users.' },
  status: { ...statusSchema, description: 'status contains information about whether the request is approved or denied, and the certificate issued by the signer, or the failure condition indicating signer failure.' },
};

export const CSR_FIELDS = Object.freeze({ spec: 2, status: 3 });
