import { StatusError } from '../errors/status-error.js';
import { checkFieldLabels, escapeFieldValue, exactMatch, parseFieldSelector, unescapeFieldValue } from './field-selector.js';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) {
      expect(e.code).toBe(400);
      return e.message;
    }
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('parseFieldSelector', () => {
  it('selects everything for empty text and empty terms', () => {
    for (const t of ['', ',', ',,']) {
      const s = parseFieldSelector(t);
      expect(s.empty).toBe(true);
      expect(s.matches({})).toBe(true);
    }
  });

  it('parses =, == and != and matches', () => {
    const s = parseFieldSelector('type!=Opaque,metadata.name==x,metadata.namespace=ns');
    expect(s.requirements).toEqual([
      { field: 'metadata.name', operator: '==', value: 'x' },
      { field: 'metadata.namespace', operator: '=', value: 'ns' },
      { field: 'type', operator: '!=', value: 'Opaque' },
    ]);
    expect(s.toString()).toBe('metadata.name=x,metadata.namespace=ns,type!=Opaque');
    expect(s.matches({ 'metadata.name': 'x', 'metadata.namespace': 'ns', type: 'kubernetes.io/tls' })).toBe(true);
    expect(s.matches({ 'metadata.name': 'x', 'metadata.namespace': 'ns', type: 'Opaque' })).toBe(false);
    expect(s.matches({ 'metadata.name': 'y', 'metadata.namespace': 'ns' })).toBe(false);
  });

  it('reads a missing field as the empty string', () => {
    expect(parseFieldSelector('spec.x=').matches({})).toBe(true);
    expect(parseFieldSelector('spec.x!=').matches({})).toBe(false);
  });

  it('honours escapes in values and splits on the first operator', () => {
    const s = parseFieldSelector('a=x\\,y\\=z\\\\,b=1');
    expect(s.requirements).toEqual([
      { field: 'a', operator: '=', value: 'x,y=z\\' },
      { field: 'b', operator: '=', value: '1' },
    ]);
    expect(s.toString()).toBe('a=x\\,y\\=z\\\\,b=1');
    expect(parseFieldSelector('a==\\=b').requirements[0]).toEqual({ field: 'a', operator: '==', value: '=b' });
    expect(parseFieldSelector('a!=').requirements[0]).toEqual({ field: 'a', operator: '!=', value: '' });
  });

  it('rejects bad terms and escapes with the Kubernetes messages', () => {
    expect(message(() => parseFieldSelector('a=b,c'))).toBe("invalid selector: 'a=b,c'; can't understand 'c'");
    expect(message(() => parseFieldSelector('a=b=c'))).toBe('invalid field selector: unescaped character in value: 61');
    expect(message(() => parseFieldSelector('a=\\x'))).toBe('invalid field selector: invalid escape sequence: \\x');
    expect(message(() => parseFieldSelector('a=b\\'))).toBe('invalid field selector: invalid escape sequence: \\');
    expect(message(() => unescapeFieldValue('a,b'))).toBe('invalid field selector: unescaped character in value: 44');
  });

  it('round-trips escaping', () => {
    for (const v of ['plain', 'a,b', 'a=b', 'a\\b', '\\,=']) expect(unescapeFieldValue(escapeFieldValue(v))).toBe(v);
  });
});

describe('checkFieldLabels / exactMatch', () => {
  it('accepts the common labels and the kind’s own', () => {
    expect(() => checkFieldLabels(parseFieldSelector('metadata.name=a,metadata.namespace=b,type=c'), ['type'])).not.toThrow();
  });

  it('rejects others with "field label not supported"', () => {
    expect(message(() => checkFieldLabels(parseFieldSelector('metadata.name=a,spec.foo=b'), ['type']))).toBe('field label not supported: spec.foo');
    expect(message(() => checkFieldLabels(parseFieldSelector('type=x'), []))).toBe('field label not supported: type');
  });

  it('finds the exact value of a field', () => {
    expect(exactMatch(parseFieldSelector('metadata.name=x'), 'metadata.name')).toBe('x');
    expect(exactMatch(parseFieldSelector('metadata.name!=x'), 'metadata.name')).toBeUndefined();
    expect(exactMatch(parseFieldSelector('type=x'), 'metadata.name')).toBeUndefined();
  });
});
