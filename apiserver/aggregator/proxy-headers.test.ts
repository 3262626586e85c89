/** The proxied request's headers: client-go's extra-key escaping, identity replacing the caller's, Accept without protobuf. */
import { acceptWithoutProtobuf, headerKeyEscape, identityHeaders, requestHeaders, responseHeaders } from './proxy-headers.js';

test("extra keys are escaped as client-go's headerKeyEscape: non-token bytes and '%' as %XX", () => {
  expect(headerKeyEscape('scopes')).toBe('scopes');
  expect(headerKeyEscape('authentication.kubernetes.io/credential-id')).toBe('authentication.kubernetes.io%2Fcredential-id');
  expect(headerKeyEscape('a%b c')).toBe('a%25b%20c');
  expect(headerKeyEscape('é')).toBe('%C3%A9');
  expect(headerKeyEscape("!#$&'*+-.^_`|~")).toBe("!#$&'*+-.^_`|~");
});

test("identity headers replace whatever the caller sent; Authorization and hop-by-hop headers go", () => {
  const identity = identityHeaders({ name: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'], extra: { 'acme.io/team': ['blue', 'green'], empty: [] } });
  expect(identity).toEqual({ 'X-Remote-User': 'alice', 'X-Remote-Group': ['devs', 'system:authenticated'], 'X-Remote-Extra-acme.io%2Fteam': ['blue', 'green'] });
  expect(identityHeaders({ name: 'bob', uid: 'u2', groups: [] }, true)).toEqual({ 'X-Remote-User': 'bob', 'X-Remote-Uid': 'u2' });
  const out = requestHeaders(
    {
      authorization: 'Bearer secret',
      'x-remote-user': 'mallory',
      'x-remote-group': 'system:masters',
      'x-remote-extra-scopes': 'all',
      'x-remote-uid': '0',
      connection: 'keep-alive',
      'transfer-encoding': 'chunked',
      host: 'front:6443',
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': 'kubectl',
    },
    identity,
    '127.0.0.1:8443',
    'application/json',
  );
  expect(out).toEqual({
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'kubectl',
    host: '127.0.0.1:8443',
    ...identity,
  });
  expect(responseHeaders({ 'content-type': 'application/json', connection: 'close', 'transfer-encoding': 'chunked', 'audit-id': 'x' })).toEqual({ 'content-type': 'application/json', 'audit-id': 'x' });
});

test('Accept loses its protobuf clauses; protobuf alone leaves nothing', () => {
  expect(acceptWithoutProtobuf(undefined)).toBeUndefined();
  expect(acceptWithoutProtobuf('application/vnd.kubernetes.protobuf')).toBe('');
  expect(acceptWithoutProtobuf('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/vnd.platform.protobuf')).toBe('');
  expect(acceptWithoutProtobuf('application/vnd.kubernetes.protobuf, application/json;as=Table;v=v1;g=meta.k8s.io, */*')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io, */*');
});
