import { dropNulls } from './drop-nulls.js';
import { kindSchema } from './object-meta-schema.js';
import type { Schema } from './schema.js';

const schema: Schema = kindSchema('test', {
  spec: {
    type: 'object',
    properties: {
      replicas: { type: 'integer', default: 1 },
      note: { type: 'string', nullable: true },
      items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
});

test('nulls of non-nullable fields go; nullable ones and array elements stay', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'T',
    metadata: { name: 'x', creationTimestamp: null, labels: null },
    spec: { replicas: null, note: null, items: [{ a: null }, null], tags: { k: null, j: 'v' } },
  };
  dropNulls(obj, schema);
  expect(obj).toEqual({
    apiVersion: 'v1',
    kind: 'T',
    metadata: { name: 'x' },
    spec: { note: null, items: [{}, null], tags: { j: 'v' } },
  });
});
