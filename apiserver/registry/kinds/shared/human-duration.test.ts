import { humanDuration } from './human-duration.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

test.each([
  [-5 * s, '<invalid>'],
  [-1500, '0s'],
  [-999, '0s'],
  [0, '0s'],
  [5 * s + 900, '5s'],
  [119 * s, '119s'],
  [2 * m, '2m'],
  [3 * m + 7 * s, '3m7s'],
  [9 * m + 59 * s, '9m59s'],
  [12 * m + 30 * s, '12m'],
  [179 * m, '179m'],
  [3 * h, '3h'],
  [3 * h + 4 * m, '3h4m'],
  [7 * h + 59 * m, '7h59m'],
  [8 * h + 30 * m, '8h'],
  [47 * h, '47h'],
  [2 * d, '2d'],
  [2 * d + 5 * h, '2d5h'],
  [7 * d + 23 * h, '7d23h'],
  [8 * d + 5 * h, '8d'],
  [400 * d, '400d'],
  [729 * d, '729d'],
  [730 * d, '2y'],
  [3 * 365 * d + 45 * d, '3y45d'],
  [8 * 365 * d + 100 * d, '8y'],
])('%d ms -> %s', (ms, text) => {
  expect(humanDuration(ms)).toBe(text);
});
