import type { RequestScope } from './request-scope.js';

/**
 * The manager recorded in managedFields: `fieldManager` when given, else the client's user agent up to
 * its first '/' (`kubectl`, `node-fetch` ...), as Kubernetes derives it.
 */
export function fieldManagerOf(scope: RequestScope, given: string): string {
  if (given !== '') return given;
  const name = (scope.ctx.get('User-Agent') || '').split('/')[0] ?? '';
  return name === '' ? 'unknown' : name.slice(0, 128);
}
