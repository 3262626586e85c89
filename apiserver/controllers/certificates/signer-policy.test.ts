import { parseCertificateRequest } from './issue-certificate.js';
import { requestNames, signerProblem, type SignerRole } from './signer-policy.js';
import { makeCsr } from './testing-csr.js';

type San = { type: 'dns' | 'ip' | 'email' | 'url'; value: string };
const names = async (subject: string, sans: San[] = []) => requestNames(parseCertificateRequest((await makeCsr(subject, sans)).csrPem));

const node = 'CN=system:node:n1, O=system:nodes';
const clientUsages = ['digital signature', 'key encipherment', 'client auth'];
const servingUsages = ['digital signature', 'key encipherment', 'server auth'];

describe('signerProblem', () => {
  it.each<[SignerRole, string, San[], string[], string | undefined]>([
    ['apiserver-client-nodeagent', node, [], clientUsages, undefined],
    ['apiserver-client-nodeagent', node, [], ['client auth', 'digital signature'], undefined],
    ['apiserver-client-nodeagent', 'CN=system:node:n1', [], clientUsages, 'subject organization is not system:nodes'],
    ['apiserver-client-nodeagent', 'CN=system:node:n1, O=system:nodes, O=extra', [], clientUsages, 'subject organization is not system:nodes'],
    ['apiserver-client-nodeagent', 'CN=n1, O=system:nodes', [], clientUsages, 'subject common name does not begin with system:node:'],
    ['apiserver-client-nodeagent', node, [{ type: 'dns', value: 'n1' }], clientUsages, 'DNS subjectAltNames are not allowed'],
    ['apiserver-client-nodeagent', node, [{ type: 'ip', value: '10.0.0.1' }], clientUsages, 'IP subjectAltNames are not allowed'],
    ['apiserver-client-nodeagent', node, [], ['client auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['apiserver-client-nodeagent', node, [], [...clientUsages, 'server auth'], 'usages did not match [client auth digital signature key encipherment]'],
    ['nodeagent-serving', node, [{ type: 'dns', value: 'n1.example' }], servingUsages, undefined],
    ['nodeagent-serving', node, [], servingUsages, 'DNS or IP subjectAltName is required'],
    ['nodeagent-serving', node, [{ type: 'dns', value: 'n1' }, { type: 'email', value: 'a@b.c' }], servingUsages, 'Email subjectAltNames are not allowed'],
    ['nodeagent-serving', node, [{ type: 'ip', value: '10.0.0.1' }], clientUsages, 'usages did not match [digital signature key encipherment server auth]'],
    ['nodeagent-serving', 'CN=n1, O=system:nodes', [{ type: 'ip', value: '10.0.0.1' }], servingUsages, 'subject common name does not begin with system:node:'],
    ['apiserver-client', 'CN=alice, O=devs', [], ['client auth'], undefined],
    ['apiserver-client', 'CN=alice', [], ['digital signature', 'key encipherment', 'client auth'], undefined],
    ['apiserver-client', 'CN=alice', [], ['digital signature'], 'missing required usage for client certificate: client auth'],
    ['apiserver-client', 'CN=alice', [], ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
    ['legacy-unknown', 'CN=anything', [], ['server auth'], undefined],
  ])('%s %s %j %j -> %p', async (role, subject, sans, usages, want) => {
    expect(signerProblem(role, await names(subject, sans), usages)).toBe(want);
  });
});
