import { applyDefaults } from './defaults.js';
import type { Schema } from './schema.js';

const schema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', nullable: true, default: 'a' },
        strategy: { type: 'object', default: { type: 'Rolling' }, properties: { type: { type: 'string' }, max: { type: 'integer', default: 25 } } },
        ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
        tags: { type: 'array', items: { type: 'string', default: 'x' } },
        limits: { type: 'object', additionalProperties: { type: 'string', default: '0' } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer', default: 7 } } } },
        opt: { type: 'object', properties: { inner: { type: 'integer', default: 3 } } },
      },
    },
  },
};

describe('applyDefaults', () => {
  it('fills absent fields top-down', () => {
    const obj: Record<string, unknown> = {};
    applyDefaults(obj, schema);
    expect(obj).toEqual({ spec: { replicas: 1, mode: 'a', strategy: { type: 'Rolling', max: 25 } } });
  });

  it('keeps given values, including falsy ones', () => {
    const obj = { spec: { replicas: 0, mode: '', strategy: { type: 'Recreate', max: 0 } } };
    applyDefaults(obj, schema);
    expect(obj).toEqual({ spec: { replicas: 0, mode: '', strategy: { type: 'Recreate', max: 0 } } });
  });

  it('replaces null on non-nullable fields, keeps null on nullable ones', () => {
    const obj = { spec: { replicas: null, mode: null } };
    applyDefaults(obj, schema);
    expect(obj.spec).toMatchObject({ replicas: 1, mode: null });
  });

  it('defaults inside array items and map values', () => {
    const obj = { spec: { ports: [{}, { protocol: 'UDP' }], tags: ['a', null], limits: { cpu: null, mem: '1' }, labels: { a: {} } } };
    applyDefaults(obj, schema);
    expect(obj.spec).toMatchObject({ ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }], tags: ['a', 'x'], limits: { cpu: '0', mem: '1' }, labels: { a: { v: 7 } } });
  });

  it('does not create a missing parent for its children', () => {
    const obj = { spec: {} as Record<string, unknown> };
    applyDefaults(obj, schema);
    expect(obj.spec.opt).toBeUndefined();
  });

  it('deep-copies defaults', () => {
    const a: { spec?: { strategy?: { type?: string } } } = {};
    const b: { spec?: { strategy?: { type?: string } } } = {};
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    a.spec!.strategy!.type = 'changed';
    expect(b.spec!.strategy!.type).toBe('Rolling');
    expect(schema.properties!.spec!.properties!.strategy!.default).toEqual({ type: 'Rolling' });
  });

  it('ignores scalars', () => {
    expect(() => applyDefaults('x', schema)).not.toThrow();
  });
});
