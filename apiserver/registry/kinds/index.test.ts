import { builtinKinds } from './index.js';

test('every built-in kind once, with distinct resources and short names', () => {
  const kinds = builtinKinds();
  expect(kinds.map((k) => k.kind)).toEqual(['ConfigMap', 'Namespace', 'Node', 'PodTemplate', 'Secret', 'ServiceAccount']);
  const resources = kinds.map((k) => `${k.group}/${k.resource}`);
  expect(new Set(resources).size).toBe(resources.length);
  const shortNames = kinds.flatMap((k) => k.shortNames ?? []);
  expect(new Set(shortNames).size).toBe(shortNames.length);
  expect(Object.isFrozen(kinds)).toBe(true);
});

test('each schema wraps apiVersion, kind and metadata', () => {
  for (const k of builtinKinds()) {
    expect(Object.keys(k.schema.properties ?? {}).slice(0, 3)).toEqual(['apiVersion', 'kind', 'metadata']);
  }
});
