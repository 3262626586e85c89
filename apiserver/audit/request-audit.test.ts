/**
 * The pieces of an audit Event that the HTTP tests do not reach easily: kube's names under
 * `--group-domain=k8s.io`, the user agent cut, omitted stages, annotations merged with the authorization
 * verdict, the microsecond time format, the source IP order, and the redaction of every sensitive kind and
 * body shape.
 */
import type { IncomingMessage } from 'node:http';
import { Registry } from 'prom-client';
import { auditMetrics } from '../metrics/audit-metrics.js';
import { naming } from '../naming/naming.js';
import { parseRequestInfo } from '../request/request-info.js';
import { formatMicroTime, formatRfc3339Nano } from './micro-time.js';
import { stageBit } from './policy-checker.js';
import { auditView, REDACTED, sensitivityOf } from './redact.js';
import { RequestAudit, type AuditEnvironment } from './request-audit.js';
import { sourceIPs } from './source-ips.js';

const k8s = naming('k8s.io');

function env(lines: string[]): AuditEnvironment {
  return {
    sink: { write: (l) => (lines.push(l), true) },
    metrics: auditMetrics(new Registry()),
    apiVersion: 'audit.k8s.io/v1',
    format: 'json',
    decisionKey: `${k8s.group('authorization')}/decision`,
    reasonKey: `${k8s.group('authorization')}/reason`,
  };
}

const info = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());

describe('RequestAudit', () => {
  it('names the impersonated user from the stage after impersonated() (JSON and legacy), RequestReceived stamped when received', () => {
    for (const format of ['json', 'legacy'] as const) {
      const lines: string[] = [];
      const rec = new RequestAudit({ ...env(lines), format }, {
        config: { level: 'Metadata', omitStages: 0, omitManagedFields: false },
        auditID: 'id-i', requestURI: '/api/v1/pods', info: info('GET', '/api/v1/pods'),
        user: { name: 'alice', uid: '', groups: ['dev'] },
        sourceIPs: ['10.0.0.1'], userAgent: '', sensitivity: 'none', annotations: {},
      });
      rec.emit('RequestReceived');
      rec.impersonated({ name: 'bob', uid: '', groups: ['team', 'system:authenticated'] });
      rec.status(200);
      rec.emit('ResponseComplete');
      if (format === 'json') {
        const [received, complete] = lines.map((l) => JSON.parse(l));
        expect(received.impersonatedUser).toBeUndefined();
        expect(received.stageTimestamp).toBe(received.requestReceivedTimestamp);
        expect(complete.user).toEqual({ username: 'alice', groups: ['dev'] });
        expect(complete.impersonatedUser).toEqual({ username: 'bob', groups: ['team', 'system:authenticated'] });
      } else {
        expect(lines[0]).toContain('user="alice" groups="\\"dev\\"" as="<self>" asgroups="<lookup>"');
        expect(lines[1]).toContain('user="alice" groups="\\"dev\\"" as="bob" asgroups="\\"team\\",\\"system:authenticated\\""');
      }
    }
  });

  it('writes audit.k8s.io/v1 Events with kube\'s annotation keys, cut user agents and omitted stages', () => {
    const lines: string[] = [];
    const state: { auditAnnotations?: Record<string, string> } = {};
    const rec = new RequestAudit(env(lines), {
      config: { level: 'Metadata', omitStages: stageBit.ResponseStarted, omitManagedFields: false },
      auditID: 'id-1',
      requestURI: '/apis/apps/v1/namespaces/ns/deployments/d/scale?dryRun=All',
      info: info('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale'),
      user: { name: 'alice', uid: '', groups: ['dev'], extra: { scopes: ['a', 'b'] } },
      impersonatedUser: { name: 'bob', uid: 'u2', groups: [] },
      sourceIPs: ['10.0.0.1'],
      userAgent: 'x'.repeat(1100),
      sensitivity: 'none',
      annotations: state,
    });
    rec.emit('RequestReceived');
    rec.requestObject({ metadata: { name: 'ignored', namespace: 'ns', uid: 'uid-1', resourceVersion: '42' } });
    rec.authorized(true, 'RBAC: allowed by ClusterRoleBinding "x"');
    state.auditAnnotations = { 'k8s.io/deprecated': 'true' };
    rec.emit('ResponseStarted');
    rec.status(200);
    rec.emit('ResponseComplete');
    expect(lines).toHaveLength(2);
    const [received, complete] = lines.map((l) => JSON.parse(l));
    expect(received).toEqual({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: 'id-1', stage: 'RequestReceived',
      requestURI: '/apis/apps/v1/namespaces/ns/deployments/d/scale?dryRun=All', verb: 'update',
      user: { username: 'alice', groups: ['dev'], extra: { scopes: ['a', 'b'] } },
      impersonatedUser: { username: 'bob', uid: 'u2' },
      sourceIPs: ['10.0.0.1'],
      userAgent: `${'x'.repeat(1024)}...TRUNCATED`,
      objectRef: { resource: 'deployments', namespace: 'ns', name: 'd', apiGroup: 'apps', apiVersion: 'v1', subresource: 'scale' },
      requestReceivedTimestamp: expect.stringMatching(/\.\d{6}Z$/),
      stageTimestamp: expect.stringMatching(/\.\d{6}Z$/),
    });
    // uid and resourceVersion come from the request object; the URL's name stays.
    expect(complete.objectRef).toEqual({ ...received.objectRef, uid: 'uid-1', resourceVersion: '42' });
    expect(complete.responseStatus).toEqual({ metadata: {}, code: 200 });
    // Metadata: no request object.
    expect(complete.requestObject).toBeUndefined();
    expect(complete.annotations).toEqual({
      'k8s.io/deprecated': 'true',
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x"',
    });
  });

  it('writes each line as compact JSON in kube\'s member order, annotation keys sorted as Go writes a map', () => {
    const lines: string[] = [];
    const state: { auditAnnotations?: Record<string, string> } = { auditAnnotations: { 'z.k8s.io/last': 'a', 'a.k8s.io/first': 'é"' } };
    const rec = new RequestAudit(env(lines), {
      config: { level: 'Metadata', omitStages: 0, omitManagedFields: false },
      auditID: 'id-3', requestURI: '/api/v1/namespaces/ns/configmaps', info: info('POST', '/api/v1/namespaces/ns/configmaps'),
      user: { name: 'jöe', uid: '', groups: [] }, sourceIPs: ['10.0.0.1', '10.0.0.2'], userAgent: 'ua', sensitivity: 'none', annotations: state,
    });
    rec.emit('RequestReceived');
    rec.requestObject({ metadata: { name: 'cm1' } });
    rec.authorized(false, 'no "way"');
    rec.fail({ status: 'Failure', message: 'forbidden', reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403 });
    rec.emit('ResponseComplete');
    const [received, complete] = lines.map((l) => JSON.parse(l));
    // Byte for byte what JSON.stringify writes of the same members in the same order: no spaces, same escapes.
    expect(lines[0]).toBe(JSON.stringify(received));
    expect(lines[1]).toBe(JSON.stringify(complete));
    expect(Object.keys(complete)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs',
      'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    expect(received.objectRef).toEqual({ resource: 'configmaps', namespace: 'ns', apiVersion: 'v1' });
    // The create's name, from its body, from the next stage on.
    expect(Object.keys(complete.objectRef)).toEqual(['resource', 'namespace', 'name', 'apiVersion']);
    expect(complete.responseStatus).toEqual({ metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403 });
    expect(Object.keys(complete.annotations)).toEqual(['a.k8s.io/first', 'authorization.k8s.io/decision', 'authorization.k8s.io/reason', 'z.k8s.io/last']);
    expect(complete.annotations['a.k8s.io/first']).toBe('é"');
    expect(complete.annotations['authorization.k8s.io/reason']).toBe('no "way"');
    expect(received.annotations).toEqual({ 'a.k8s.io/first': 'é"', 'z.k8s.io/last': 'a' });
  });

  it('has no objectRef for non-resource requests; encodes objects once, when handed over', () => {
    const lines: string[] = [];
    const rec = new RequestAudit(env(lines), {
      config: { level: 'RequestResponse', omitStages: 0, omitManagedFields: true },
      auditID: 'id-2', requestURI: '/version', info: info('GET', '/version'), user: undefined, impersonatedUser: undefined,
      sourceIPs: [], userAgent: '', sensitivity: 'none', annotations: {},
    });
    const obj = { metadata: { name: 'a', managedFields: [{ manager: 'm' }] }, n: 1 };
    rec.responseObject(obj);
    obj.n = 2;
    rec.status(200);
    rec.emit('ResponseComplete');
    const e = JSON.parse(lines[0]!);
    expect(e.objectRef).toBeUndefined();
    expect(e.user).toEqual({});
    expect(e.verb).toBe('get');
    expect(e.responseObject).toEqual({ metadata: { name: 'a' }, n: 1 });
    // The caller's object keeps its managed fields.
    expect(obj.metadata.managedFields).toHaveLength(1);
  });
});

describe('micro time', () => {
  it('prints six fractional digits in UTC, and RFC3339Nano trimmed for the legacy format', () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6) * 1000 + 7)).toBe('2026-01-02T03:04:05.006007Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000)).toBe('2026-01-02T03:04:05.000000Z');
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 120) * 1000)).toBe('2026-01-02T03:04:05.12Z');
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5) * 1000)).toBe('2026-01-02T03:04:05Z');
  });
});

describe('sourceIPs', () => {
  const req = (headers: Record<string, string>, remote: string) => ({ headers, socket: { remoteAddress: remote } }) as unknown as IncomingMessage;
  it.each([
    [{}, '::ffff:127.0.0.1', ['127.0.0.1']],
    [{ 'x-forwarded-for': '1.1.1.1, junk, 2.2.2.2' }, '3.3.3.3', ['1.1.1.1', '2.2.2.2', '3.3.3.3']],
    [{ 'x-forwarded-for': '1.1.1.1', 'x-real-ip': '1.1.1.1' }, '1.1.1.1', ['1.1.1.1']],
    [{ 'x-real-ip': '4.4.4.4' }, '::1', ['4.4.4.4', '::1']],
  ])('%j from %s', (headers, remote, expected) => {
    expect(sourceIPs(req(headers, remote))).toEqual(expected);
  });
});

describe('redaction', () => {
  const platform = naming('platform.io');
  it('knows the sensitive resources', () => {
    expect(sensitivityOf(info('GET', '/api/v1/namespaces/a/secrets/s'), platform)).toBe('secret');
    expect(sensitivityOf(info('POST', '/api/v1/namespaces/a/serviceaccounts/sa/token'), platform)).toBe('token-request');
    expect(sensitivityOf(info('GET', '/api/v1/namespaces/a/serviceaccounts/sa'), platform)).toBe('none');
    expect(sensitivityOf(info('POST', '/apis/authentication.platform.io/v1/tokenreviews'), platform)).toBe('token-review');
    expect(sensitivityOf(info('GET', '/apis/apps.platform.io/v1/namespaces/a/secrets'), platform)).toBe('none');
    expect(sensitivityOf(info('GET', '/api/v1/namespaces/a/configmaps/c'), platform)).toBe('none');
  });

  it('redacts Secrets in objects, lists, tables and patches, tokens of TokenRequest and TokenReview, without mutating', () => {
    const secret = { kind: 'Secret', metadata: { name: 's', managedFields: [{}], annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"k":"djE="}}' } }, data: { k: 'djE=' }, type: 'Opaque' };
    const frozen = JSON.stringify(secret);
    expect(auditView(secret, true, 'secret')).toEqual({
      kind: 'Secret', metadata: { name: 's', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': REDACTED } }, data: { k: REDACTED }, type: 'Opaque',
    });
    expect(JSON.stringify(secret)).toBe(frozen);
    expect(auditView({ kind: 'SecretList', items: [secret] }, false, 'secret')).toMatchObject({ items: [{ data: { k: REDACTED } }] });
    expect(auditView({ kind: 'Table', rows: [{ cells: ['s'], object: secret }] }, false, 'secret')).toMatchObject({ rows: [{ cells: ['s'], object: { data: { k: REDACTED } } }] });
    expect(auditView([{ op: 'replace', path: '/data', value: { k: 'x' } }, { op: 'remove', path: '/data/y' }], false, 'secret'))
      .toEqual([{ op: 'replace', path: '/data', value: REDACTED }, { op: 'remove', path: '/data/y' }]);
    expect(auditView({ stringData: { p: 'v' } }, false, 'secret')).toEqual({ stringData: { p: REDACTED } });
    expect(auditView({ kind: 'TokenRequest', spec: { audiences: ['a'] }, status: { token: 'jwt', expirationTimestamp: 't' } }, false, 'token-request'))
      .toEqual({ kind: 'TokenRequest', spec: { audiences: ['a'] }, status: { token: REDACTED, expirationTimestamp: 't' } });
    expect(auditView({ kind: 'TokenReview', spec: { token: 'jwt' }, status: { authenticated: true } }, false, 'token-review'))
      .toEqual({ kind: 'TokenReview', spec: { token: REDACTED }, status: { authenticated: true } });
    // A Status is never changed; nothing is copied when there is nothing to do.
    const status = { kind: 'Status', code: 404 };
    expect(auditView(status, true, 'secret')).toBe(status);
    expect(auditView(secret, false, 'none')).toBe(secret);
  });
});
