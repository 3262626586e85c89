import { StatusError } from '../../errors/status-error.js';
import { decodeContinue, encodeContinue } from './continue-token.js';

const prefix = '/registry/widgets/';
const tok = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('continue tokens', () => {
  test('round trip, in kube format', () => {
    const t = encodeContinue('/registry/widgets/ns/b\x00', prefix, 42);
    expect(JSON.parse(Buffer.from(t, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: 42, start: 'ns/b\x00' });
    expect(decodeContinue(t, prefix)).toEqual({ startKey: '/registry/widgets/ns/b\x00', revision: 42 });
  });

  test('rv -1 continues at the latest revision', () => {
    expect(decodeContinue(tok({ v: 'meta.k8s.io/v1', rv: -1, start: 'a' }), prefix).revision).toBe(-1);
  });

  test.each([
    ['not base64', '!!!', 'illegal base64 data'],
    ['not json', Buffer.from('nope').toString('base64url'), 'the token is not JSON'],
    ['wrong version', tok({ v: 'x/v2', rv: 1, start: 'a' }), 'server does not recognize this encoded version x/v2'],
    ['rv 0', tok({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
    ['rv -2', tok({ v: 'meta.k8s.io/v1', rv: -2, start: 'a' }), 'incorrect encoded start resourceVersion'],
    ['empty start', tok({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), 'encoded start key empty'],
    ['traversal', tok({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), 'continue key is not valid: ../secrets/x'],
    ['dot segment', tok({ v: 'meta.k8s.io/v1', rv: 3, start: 'a/./b' }), 'continue key is not valid: a/./b'],
    ['double slash', tok({ v: 'meta.k8s.io/v1', rv: 3, start: 'a//b' }), 'continue key is not valid'],
  ])('%s is 400', (_what, token, message) => {
    let err: unknown;
    try {
      decodeContinue(token, prefix);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toContain('invalid continue token: ');
    expect((err as StatusError).message).toContain(message);
  });
});
