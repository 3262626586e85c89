/** The query as Go's url.ParseQuery reads it. */
import { parseQuery } from './go-query.js';

test('pairs with a malformed escape or a semicolon are dropped, the rest decoded', () => {
  expect([...parseQuery('watch=false%zz&limit=5')]).toEqual([['limit', '5']]);
  expect([...parseQuery('a=%&b=%4&c=%41&d=x+y')]).toEqual([['c', 'A'], ['d', 'x y']]);
  expect([...parseQuery('labelSelector=a;b&x=1')]).toEqual([['x', '1']]);
  expect([...parseQuery('k%zz=1&ok=2')]).toEqual([['ok', '2']]);
  expect([...parseQuery('')]).toEqual([]);
  expect([...parseQuery('a=1&a=2')]).toEqual([['a', '1'], ['a', '2']]);
});
