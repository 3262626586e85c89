/**
 * The request URI the audit log and trace spans record (apiserver/log/safe-query.ts): verbatim, unless a
 * parameter's name looks like it carries a credential; then that value is replaced.
 */
import { safeRequestUri } from '../../apiserver/log/safe-query.js';

it('keeps URIs without sensitive parameters byte for byte, redacts the values of sensitive ones', () => {
  for (const uri of ['/api', '/api/v1/pods?labelSelector=a%3Db,c&limit=5', '/apis/apps/v1/deployments?watch=1&resourceVersion=7', '/x?', '/x?a']) {
    expect(safeRequestUri(uri)).toBe(uri);
  }
  expect(safeRequestUri('/api/v1/pods?access_token=abc&limit=5')).toBe('/api/v1/pods?access_token=[REDACTED]&limit=5');
  expect(safeRequestUri('/version?apikey=k&Password=p&sig=s')).toBe('/version?apikey=[REDACTED]&Password=[REDACTED]&sig=[REDACTED]');
  expect(safeRequestUri('/x?token=a&token=b')).not.toContain('=a');
});
