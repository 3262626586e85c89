import { StatusError } from '../../errors/status-error.js';
import { checkApplyConfig, gvkString } from './apply-config.js';
import { testSchema } from './testing/test-schema.js';

const target = { apiVersion: 'v1', kind: 'Thing', schema: testSchema, namespace: 'ns', name: 'x' };
const message = (config: unknown): string => {
  try {
    checkApplyConfig(config, target);
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
  return 'ok';
};

describe('checkApplyConfig', () => {
  test('GroupVersionKind printed as Go prints it', () => {
    expect(gvkString('apps/v1', 'Deployment')).toBe('apps/v1, Kind=Deployment');
    expect(gvkString('v1', 'Secret')).toBe('/v1, Kind=Secret');
    expect(gvkString(undefined, undefined)).toBe('/, Kind=');
  });

  test.each([
    [{ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x' }, data: { a: '1' } }, 'ok'],
    [null, '400 invalid object type: /, Kind='],
    [{ kind: 'Thing', metadata: { name: 'x' } }, '400 invalid object type: /, Kind=Thing'],
    [{ apiVersion: 'v1', kind: 'Other' }, '400 invalid object type: /v1, Kind=Other'],
    [{ apiVersion: 'v1', kind: 'Thing', metadata: { managedFields: [] } }, '400 metadata.managedFields must be nil'],
    [{ apiVersion: 'v1', kind: 'Thing', spec: { nope: 1 } }, '400 failed to create typed patch object (ns/x; /v1, Kind=Thing): .spec.nope: field not declared in schema'],
    [{ apiVersion: 'v1', kind: 'Thing', items: [{ value: '1' }] }, '400 failed to create typed patch object (ns/x; /v1, Kind=Thing): .items: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)'],
    [{ apiVersion: 'v1', kind: 'Thing', tags: ['a', 'a'] }, '400 failed to create typed patch object (ns/x; /v1, Kind=Thing): .tags: duplicate entries for key [="a"]'],
  ])('%j -> %s', (config, expected) => {
    expect(message(config)).toBe(expected);
  });
});
