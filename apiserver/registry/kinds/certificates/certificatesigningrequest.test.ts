/**
 * CertificateSigningRequest through a real generic registry over the embedded store: create (requester
 * fields, status reset, Kubernetes v1.32's validation and messages), main-resource updates (spec and status
 * kept), the `approval` and `status` sub-resources (each writes only its part; condition and certificate
 * rules), the table and the signer names of both domains.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import type { Requester } from '../../../authorization/access.js';
import { NO_OPINION } from '../../../authorization/authorizer.js';
import { serveResources, type ServedResources } from '../../served-resources.js';
import { StatusError } from '../../../errors/status-error.js';
import { naming } from '../../../naming/naming.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { certificateSigningRequests } from './certificatesigningrequest.js';
import { csrCondition, csrTable } from './csr-table.js';
import { signerNames } from './signer-names.js';
import { b64, certificatePem, csrPem, tamperedPem } from './testing.js';

const GROUP = 'certificates.platform.io';
const SIGNER = 'example.com/my-signer';
const requester = (name: string, groups: string[] = [], extra?: Record<string, string[]>): Requester => ({
  user: { name, uid: `uid-${name}`, groups, ...(extra === undefined ? {} : { extra }) },
  authorizer: { authorize: () => NO_OPINION },
  ruleResolver: undefined,
});

let pem = '';
let rsaPem = '';
let tampered = '';
let cert = '';
let cert2 = '';

const csr = (name: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: b64(pem), signerName: SIGNER, usages: ['client auth'], ...spec },
  ...(status === undefined ? {} : { status }),
});

describe('CertificateSigningRequest through the registry', () => {
  let dir: string;
  let store: MemoryStore;
  let served: ServedResources;
  beforeAll(async () => {
    [pem, rsaPem, tampered, cert, cert2] = await Promise.all([
      csrPem('CN=system:node:n1, O=system:nodes'),
      csrPem('CN=alice', 'rsa'),
      csrPem('CN=tamper-me').then(tamperedPem),
      certificatePem('CN=one'),
      certificatePem('CN=two'),
    ]);
    dir = await mkdtemp(join(tmpdir(), 'csr-kind-'));
    store = await openMemoryStore({ dataDir: dir });
    served = serveResources({ store, naming: naming('platform.io'), kinds: [certificateSigningRequests], prefix: '/registry' });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const registry = () => served.lookup(GROUP, 'v1', 'certificatesigningrequests')!.registry;
  let n = 0;
  const fresh = () => `csr-${++n}`;
  /** The 422's causes (`field: message`), or [] when the write succeeded. */
  const causes = async (write: Promise<unknown>): Promise<string[]> => {
    try {
      await write;
      return [];
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      expect(e.code).toBe(422);
      return (e.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    }
  };
  const create = (spec: Record<string, unknown>) => causes(registry().create('', csr(fresh(), spec), { requester: requester('alice') }));
  const approval = (obj: KubeObject, conditions: unknown[]) => registry().update('', obj.metadata.name!, { ...obj, status: { ...(obj.status as object), conditions } }, { subresource: 'approval' });
  const status = (obj: KubeObject, st: Record<string, unknown>) => registry().update('', obj.metadata.name!, { ...obj, status: st }, { subresource: 'status' });
  const created = async (spec: Record<string, unknown> = {}) => (await registry().create('', csr(fresh(), spec), { requester: requester('alice') })).object;
  const approved = async () => (await approval(await created(), [{ type: 'Approved', status: 'True', reason: 'OK' }])).object;

  const badPem = 'PEM block type must be CERTIFICATE REQUEST';
  const usagesList = '"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"';

  // [name, spec changes, expected causes (prefix match for long values)]
  const createCases: [string, () => Record<string, unknown>, (string | RegExp)[]][] = [
    ['a valid ECDSA request', () => ({}), []],
    ['a valid RSA request', () => ({ request: b64(rsaPem) }), []],
    ['several usages', () => ({ usages: ['digital signature', 'key encipherment', 'client auth'] }), []],
    ['expirationSeconds 600', () => ({ expirationSeconds: 600 }), []],
    ['a well-known signer', () => ({ signerName: 'platform.io/apiserver-client' }), []],
    ['a tampered request (signature does not verify)', () => ({ request: b64(tampered) }), [/^spec\.request: Invalid value: \[\]byte\{0x2d, .*\}: x509: ECDSA verification failure$/]],
    ['no request', () => ({ request: undefined }), [`spec.request: Invalid value: []byte(nil): ${badPem}`]],
    ['a request that is not PEM', () => ({ request: b64('hello') }), [`spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: ${badPem}`]],
    ['a CERTIFICATE block instead of a request', () => ({ request: b64(cert) }), [new RegExp(`^spec\\.request: Invalid value: \\[\\]byte\\{.*\\}: ${badPem}$`)]],
    ['a request block with garbage inside', () => ({ request: b64('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n') }), [/: x509: malformed certificate request$/]],
    ['no usages', () => ({ usages: undefined }), ['spec.usages: Required value']],
    ['empty usages', () => ({ usages: [] }), ['spec.usages: Required value']],
    ['an unknown usage', () => ({ usages: ['client auth', 'fly'] }), [`spec.usages[1]: Unsupported value: "fly": supported values: ${usagesList}`]],
    ['a duplicate usage', () => ({ usages: ['client auth', 'server auth', 'client auth'] }), ['spec.usages[2]: Duplicate value: "client auth"']],
    ['expirationSeconds 599', () => ({ expirationSeconds: 599 }), ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']],
    ['expirationSeconds 0', () => ({ expirationSeconds: 0 }), ['spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 600 seconds (10 minutes)']],
    ['no signerName', () => ({ signerName: undefined }), ['spec.signerName: Required value']],
    ['a signerName without a path', () => ({ signerName: 'example.com' }), ['spec.signerName: Invalid value: "example.com": must be a fully qualified domain and path of the form \'example.com/signer-name\'']],
    ['a signerName with two slashes', () => ({ signerName: 'example.com/a/b' }), ['spec.signerName: Invalid value: "example.com/a/b": must be a fully qualified domain and path of the form \'example.com/signer-name\'']],
    ['a single-label signer domain', () => ({ signerName: 'example/signer' }), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']],
    ['a signer domain with capitals', () => ({ signerName: 'Example.com/signer' }), [/^spec\.signerName: Invalid value: "Example\.com": validating label "Example": a lowercase RFC 1123 label/]],
    ['a signer path with an underscore', () => ({ signerName: 'example.com/my_signer' }), [/^spec\.signerName: Invalid value: "my_signer": validating label "my_signer": a lowercase RFC 1123 subdomain/]],
    ['the legacy-unknown signer', () => ({ signerName: 'platform.io/legacy-unknown' }), ['spec.signerName: Invalid value: "platform.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
  ];
  test.each(createCases)('create: %s', async (_name, spec, expected) => {
    const got = await create(spec());
    expect(got).toHaveLength(expected.length);
    expected.forEach((e, i) => (typeof e === 'string' ? expect(got[i]).toBe(e) : expect(got[i]).toMatch(e)));
  });

  test('create: the requester fills username, uid, groups and extra; the body\'s values and status are dropped', async () => {
    const body = csr(fresh(), { username: 'mallory', uid: 'u0', groups: ['system:masters'], extra: { x: ['y'] } }, { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(cert) });
    const { object } = await registry().create('', body, { requester: requester('bob', ['devs', 'system:authenticated'], { scopes: ['a', 'b'] }) });
    expect(object.spec).toMatchObject({ username: 'bob', uid: 'uid-bob', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } });
    expect(object.status).toEqual({});
    // The server's own writes (no requester) leave them empty.
    const { object: own } = await registry().create('', csr(fresh(), { username: 'mallory' }));
    expect((own.spec as Record<string, unknown>).username).toBeUndefined();
  });

  test('main-resource updates keep the stored spec and status (Kubernetes drops the changes)', async () => {
    const obj = await approved();
    const { object } = await registry().update('', obj.metadata.name!, {
      ...obj,
      metadata: { ...obj.metadata, labels: { a: 'b' } },
      spec: { ...(obj.spec as object), signerName: 'example.com/other', usages: ['server auth'], username: 'mallory' },
      status: { conditions: [], certificate: b64(cert) },
    });
    expect(object.spec).toEqual(obj.spec);
    expect(object.status).toEqual(obj.status);
    expect(object.metadata.labels).toEqual({ a: 'b' });
  });

  // Transitions through the sub-resources: [name, write, expected causes].
  const A = { type: 'Approved', status: 'True', reason: 'OK' };
  const D = { type: 'Denied', status: 'True', reason: 'No' };
  const F = { type: 'Failed', status: 'True', reason: 'Broke' };
  const transitions: [string, () => Promise<unknown>, (string | RegExp)[]][] = [
    ['approve a pending request', async () => approval(await created(), [A]), []],
    ['deny a pending request', async () => approval(await created(), [D]), []],
    ['Approved and Denied together', async () => approval(await created(), [A, D]), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']],
    ['deny an approved request', async () => approval(await approved(), [A, D]), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']],
    ['replace Approved by Denied', async () => approval(await approved(), [D]), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']],
    ['remove Approved', async () => approval(await approved(), []), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']],
    // The schema's list-type map check (every built-in kind's) and Kubernetes' own.
    ['two Approved conditions', async () => approval(await created(), [A, A]), ['status.conditions[1]: Duplicate value: {"type":"Approved"}', 'status.conditions[1].type: Duplicate value: "Approved"']],
    ['two Failed conditions', async () => status(await approved(), { conditions: [A, F, F] }), ['status.conditions[2]: Duplicate value: {"type":"Failed"}', 'status.conditions[2].type: Duplicate value: "Failed"']],
    ['Approved with status False', async () => approval(await created(), [{ ...A, status: 'False' }]), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']],
    ['Denied with status Unknown', async () => approval(await created(), [{ ...D, status: 'Unknown' }]), ['status.conditions[0].status: Unsupported value: "Unknown": supported values: "True"']],
    ['Approved without a status', async () => approval(await created(), [{ type: 'Approved' }]), ['status.conditions[0].status: Required value']],
    ['a condition without a type (through /status)', async () => status(await created(), { conditions: [{ status: 'True' }] }), ['status.conditions[0].type: Required value']],
    ['/approval ignores conditions of other types', async () => approval(await created(), [{ status: 'True' }, { type: 'Failed', status: 'False' }]), []],
    ['a custom condition type may be False', async () => status(await created(), { conditions: [{ type: 'Checked', status: 'False' }] }), []],
    ['a custom condition with another status', async () => status(await created(), { conditions: [{ type: 'Checked', status: 'Maybe' }] }), ['status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"']],
    ['Failed through status', async () => status(await approved(), { conditions: [A, F] }), []],
    ['Failed with status False', async () => status(await approved(), { conditions: [A, { ...F, status: 'False' }] }), ['status.conditions[1].status: Unsupported value: "False": supported values: "True"']],
    ['remove Failed through status', async () => {
      const failed = (await status(await approved(), { conditions: [A, F] })).object;
      return status(failed, { conditions: [A] });
    }, ['status.conditions: Forbidden: updates may not remove a condition of type "Failed"']],
    ['the certificate of an approved request', async () => status(await approved(), { certificate: b64(cert) }), []],
    ['a certificate chain with text around it', async () => status(await approved(), { certificate: b64(`leaf\n${cert}between\n${cert2}after\n`) }), []],
    ['a certificate before approval', async () => status(await created(), { certificate: b64(cert) }), ['status.certificate: Forbidden: updates may not set certificate content before the request is Approved']],
    ['a certificate on a denied request', async () => status((await approval(await created(), [D])).object, { certificate: b64(cert) }), ['status.certificate: Forbidden: updates may not set certificate content before the request is Approved']],
    ['change the certificate once set', async () => {
      const issued = (await status(await approved(), { certificate: b64(cert) })).object;
      return status(issued, { ...(issued.status as object), certificate: b64(cert2) });
    }, ['status.certificate: Forbidden: updates may not modify existing certificate content']],
    ['remove the certificate once set', async () => {
      const issued = (await status(await approved(), { certificate: b64(cert) })).object;
      return status(issued, { ...(issued.status as object), certificate: undefined });
    }, ['status.certificate: Forbidden: updates may not modify existing certificate content']],
    ['a certificate that is not PEM', async () => status(await approved(), { certificate: b64('not pem') }), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']],
    ['a PEM block of another type', async () => status(await approved(), { certificate: b64(pem) }), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"']],
    ['a PEM block with headers', async () => status(await approved(), { certificate: b64(cert.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n')) }), ['status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted']],
    ['a CERTIFICATE block that does not parse', async () => status(await approved(), { certificate: b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') }), ['status.certificate: Invalid value: "<certificate data>": x509: malformed certificate']],
  ];
  test.each(transitions)('transition: %s', async (_name, write, expected) => {
    const got = await causes(write());
    expect(got).toHaveLength(expected.length);
    expected.forEach((e, i) => (typeof e === 'string' ? expect(got[i]).toBe(e) : expect(got[i]).toMatch(e)));
  });

  test('/approval writes only Approved and Denied; /status only the certificate and other conditions', async () => {
    const obj = await created();
    // Through /approval: a Failed condition and a certificate are ignored, Approved is stored.
    const { object: a } = await registry().update('', obj.metadata.name!, { ...obj, spec: { ...(obj.spec as object), usages: ['server auth'] }, status: { conditions: [A, F], certificate: b64(cert) } }, { subresource: 'approval' });
    expect((a.status as any).conditions.map((c: any) => c.type)).toEqual(['Approved']);
    expect((a.status as any).certificate).toBeUndefined();
    expect((a.spec as any).usages).toEqual(['client auth']);
    // Through /status: the Approved condition sent is ignored (the stored one stays), Failed is added.
    const { object: s } = await registry().update('', a.metadata.name!, { ...a, status: { conditions: [{ ...A, reason: 'Changed' }, F] } }, { subresource: 'status' });
    expect((s.status as any).conditions.map((c: any) => [c.type, c.reason])).toEqual([['Approved', 'OK'], ['Failed', 'Broke']]);
    // managedFields record each sub-resource.
    expect(s.metadata.managedFields?.map((m) => m.subresource ?? '')).toEqual(['', 'approval', 'status']);
  });

  test('condition timestamps: lastUpdateTime and lastTransitionTime defaulted, given ones kept', async () => {
    const obj = await created();
    const { object } = await approval(obj, [{ ...A, lastUpdateTime: '2020-01-01T00:00:00Z' }]);
    const [c] = (object.status as any).conditions;
    expect(c.lastUpdateTime).toBe('2020-01-01T00:00:00Z');
    expect(Date.parse(c.lastTransitionTime)).toBeGreaterThan(Date.now() - 60_000);
    const stored = { ...c, lastTransitionTime: '2021-01-01T00:00:00Z' };
    // An unchanged type and status keeps the stored lastTransitionTime when the write leaves it out.
    const again = (await registry().update('', obj.metadata.name!, { ...object, status: { conditions: [{ ...stored }] } }, { subresource: 'approval' })).object;
    const { lastTransitionTime: _drop, ...withoutTime } = (again.status as any).conditions[0];
    const third = (await registry().update('', obj.metadata.name!, { ...again, status: { conditions: [withoutTime] } }, { subresource: 'approval' })).object;
    expect((third.status as any).conditions[0].lastTransitionTime).toBe('2021-01-01T00:00:00Z');
  });

  test('the table: signer, requestor, duration, condition', async () => {
    const obj = await created({ expirationSeconds: 3600 });
    expect(csrTable.columns.map((c) => c.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(csrTable.cells(obj, new Date()).slice(2)).toEqual([SIGNER, 'alice', '60m', 'Pending']);
    expect(csrTable.cells(await created(), new Date())[4]).toBe('<none>');
    const issued = (await status(await approved(), { certificate: b64(cert) })).object;
    expect(csrCondition(issued)).toBe('Approved,Issued');
    const failed = (await status(await approved(), { conditions: [A, F] })).object;
    expect(csrCondition(failed)).toBe('Approved,Failed');
    expect(csrCondition((await approval(await created(), [D])).object)).toBe('Denied');
  });

  test('field selector spec.signerName', async () => {
    const name = fresh();
    await registry().create('', csr(name, { signerName: 'other.example.com/only-one' }), { requester: requester('alice') });
    expect(certificateSigningRequests.selectableFields['spec.signerName'](csr('x', { signerName: 'a.b/c' }))).toBe('a.b/c');
  });
});

describe('signer names', () => {
  test('platform.io and k8s.io', () => {
    expect(signerNames(naming('platform.io'))).toMatchObject({
      apiserverClient: 'platform.io/apiserver-client',
      nodeAgentClient: 'platform.io/apiserver-client-nodeagent',
      nodeAgentServing: 'platform.io/nodeagent-serving',
      legacyUnknown: 'platform.io/legacy-unknown',
    });
    expect(signerNames(naming('k8s.io')).wellKnown).toEqual([
      'kubernetes.io/kube-apiserver-client',
      'kubernetes.io/kube-apiserver-client-kubelet',
      'kubernetes.io/kubelet-serving',
    ]);
    expect(signerNames(naming('k8s.io')).legacyUnknown).toBe('kubernetes.io/legacy-unknown');
  });
});
