import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { failedAuthenticationMessage } from './authentication-methods.js';

function message(authorization: string | undefined, query = ''): string {
  const req = new IncomingMessage(new Socket());
  if (authorization !== undefined) req.headers.authorization = authorization;
  return failedAuthenticationMessage(req, new URLSearchParams(query));
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('failedAuthenticationMessage (kube\'s getAuthMethods)', () => {
  it('names no method without credentials', () => {
    expect(message(undefined)).toBe('Authentication failed, no credentials provided');
    expect(message(undefined, 'access_token=%20')).toBe('Authentication failed, no credentials provided');
  });

  it('counts bearer as kube splits the header: the word bearer in any case and one more word', () => {
    expect(message('Bearer abc')).toBe('Authentication failed, attempted: bearer');
    expect(message('bEaReR abc')).toBe('Authentication failed, attempted: bearer');
    expect(message('Bearer')).toBe('Authentication failed, no credentials provided');
    expect(message('  Bearer   ')).toBe('Authentication failed, no credentials provided');
    expect(message('Token abc')).toBe('Authentication failed, no credentials provided');
  });

  it('counts basic only when it decodes to user:password', () => {
    expect(message(`Basic ${b64('u:p')}`)).toBe('Authentication failed, attempted: basic');
    expect(message(`basic ${b64('u:')}`)).toBe('Authentication failed, attempted: basic');
    expect(message(`Basic ${b64('nocolon')}`)).toBe('Authentication failed, no credentials provided');
    expect(message('Basic !!!!')).toBe('Authentication failed, no credentials provided');
  });

  it('lists several methods in kube\'s order', () => {
    expect(message('Bearer t', 'access_token=x')).toBe('Authentication failed, attempted: bearer, access_token');
  });
});
