import { safeQuery } from '../../apiserver/log/safe-query.js';
import { memoryLogger } from './helpers.js';

describe('logger', () => {
  it('writes JSON lines with a level label and censors credentials wherever a caller puts them', () => {
    const { logger, lines } = memoryLogger('info');
    logger.info({ headers: { authorization: 'Bearer h-secret' }, req: { headers: { Authorization: 'Bearer h2-secret' } }, token: 't-secret', user: { password: 'p-secret' } }, 'hello');
    logger.debug('hidden at info');
    const out = lines();
    expect(out).toHaveLength(1);
    const line = JSON.parse(out[0]!);
    expect(line).toMatchObject({ level: 'info', msg: 'hello', token: '[REDACTED]', headers: { authorization: '[REDACTED]' } });
    expect(line.time).toMatch(/Z$/);
    expect(out[0]).not.toMatch(/secret/);
  });

  it('redacts secret-looking query values only', () => {
    expect(safeQuery('?limit=500&watch=true')).toBe('limit=500&watch=true');
    expect(safeQuery('access_token=abc&labelSelector=app%3Dweb&apiKey=k')).toBe('access_token=[REDACTED]&labelSelector=app%3Dweb&apiKey=[REDACTED]');
    expect(safeQuery('')).toBe('');
  });
});
