/** The printer-column / selectable-field paths: parsing and evaluation with missing keys allowed. */
import { evaluateJsonPath, parseSimpleJsonPath } from './simple-json-path.js';

const obj = {
  spec: { 'a.b': 1, list: [{ type: 'A', v: 1 }, { type: 'B', v: 2, flag: true }], n: 0 },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};
const at = (path: string): unknown[] => evaluateJsonPath(parseSimpleJsonPath(path)!, obj);

test('fields, quoted names, indexes, wildcards and filters', () => {
  expect(at('.spec.n')).toEqual([0]);
  expect(at(".spec['a.b']")).toEqual([1]);
  expect(at('.spec.list[1].v')).toEqual([2]);
  expect(at('.spec.list[-1].type')).toEqual(['B']);
  expect(at('.spec.list[*].type')).toEqual(['A', 'B']);
  expect(at('.status.conditions[?(@.type == "Ready")].status')).toEqual(['True']);
  expect(at(".spec.list[?(@.type!='A')].v")).toEqual([2]);
  expect(at('.spec.list[?(@.v==1)].type')).toEqual(['A']);
  expect(at('.spec.list[?(@.flag)].type')).toEqual(['B']);
  expect(at('{.spec.n}')).toEqual([0]);
});

test('missing keys and indexes reach nothing', () => {
  expect(at('.spec.missing.deeper')).toEqual([]);
  expect(at('.spec.list[5]')).toEqual([]);
  expect(at('.status.conditions[?(@.type=="Other")].status')).toEqual([]);
  expect(at('.spec.n.x')).toEqual([]);
});

test('paths that are not simple are refused', () => {
  expect(parseSimpleJsonPath('.spec.list[?(@.v>1)]')).toBeUndefined();
  expect(parseSimpleJsonPath('.spec..x')).toBeUndefined();
  expect(parseSimpleJsonPath('.spec[')).toBeUndefined();
});
