import { StatusError } from '../../errors/status-error.js';
import { keyLayout } from './keys.js';

describe('keyLayout', () => {
  test('kube layout for namespaced and cluster-scoped kinds', () => {
    const ns = keyLayout('/registry', 'secrets', true);
    expect(ns.objectKey('default', 'x')).toBe('/registry/secrets/default/x');
    expect(ns.collectionPrefix('default')).toBe('/registry/secrets/default/');
    expect(ns.collectionPrefix('')).toBe('/registry/secrets/');
    const cl = keyLayout('/custom/', 'example.com/things', false);
    expect(cl.objectKey('ignored', 'x')).toBe('/custom/example.com/things/x');
    expect(cl.collectionPrefix('')).toBe('/custom/example.com/things/');
  });

  test.each([
    ['default', '..', 'Name parameter invalid: "..": may not be \'..\''],
    ['default', 'a/b', "Name parameter invalid: \"a/b\": may not contain '/'"],
    ['default', '', 'Name parameter required.'],
    ['', 'x', 'Namespace parameter required.'],
    ['a/b', 'x', "Namespace parameter invalid: \"a/b\": may not contain '/'"],
  ])('unsafe %j/%j is 400', (ns, name, message) => {
    let err: unknown;
    try {
      keyLayout('/registry', 'secrets', true).objectKey(ns, name);
    } catch (e) {
      err = e;
    }
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toBe(message);
  });
});
