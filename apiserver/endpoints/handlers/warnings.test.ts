import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { recordWarnings, warningHeader } from './warnings.js';

function context(): Koa.Context {
  const req = new IncomingMessage(new Socket());
  return new Koa().createContext(req, new ServerResponse(req));
}

const headers = (ctx: Koa.Context): string[] => {
  const v = ctx.response.get('Warning') as unknown;
  return v === '' || v === undefined ? [] : Array.isArray(v) ? v : [String(v)];
};

describe('recordWarnings', () => {
  it('writes each text once, in order, across calls', () => {
    const ctx = context();
    recordWarnings(ctx, ['a', 'b', 'a']);
    recordWarnings(ctx, ['b', 'c', '']);
    expect(headers(ctx)).toEqual(['299 - "a"', '299 - "b"', '299 - "c"']);
  });

  it('cuts every warning to 256 characters once the total passes 4096, the earlier ones too, then drops the rest', () => {
    const ctx = context();
    const long = (c: string): string => c.repeat(1000);
    recordWarnings(ctx, [long('a'), long('b'), long('c'), long('d')]);
    expect(headers(ctx)).toEqual(['a', 'b', 'c', 'd'].map((c) => `299 - "${long(c)}"`));
    recordWarnings(ctx, [long('e')]); // 5000 characters: truncation starts
    expect(headers(ctx)).toEqual(['a', 'b', 'c', 'd', 'e'].map((c) => `299 - "${c.repeat(256)}"`));
    const many = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(300)}`);
    recordWarnings(ctx, many);
    const all = headers(ctx);
    // 5 × 256 written, then cut ones until the total reaches 4096: 11 more (16 × 256 = 4096), then none.
    expect(all).toHaveLength(16);
    expect(all[15]).toBe(warningHeader(many[10]!.slice(0, 256)));
    expect(all.reduce((n, h) => n + h.length, 0)).toBeLessThan(16 * 1024);
  });

  it('counts characters, not UTF-16 units, when cutting', () => {
    const ctx = context();
    recordWarnings(ctx, ['x'.repeat(4096)]);
    recordWarnings(ctx, ['😀'.repeat(300)]);
    expect(headers(ctx)[1]).toBe(warningHeader('😀'.repeat(256)));
  });
});
