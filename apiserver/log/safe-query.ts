/** Query parameter names whose values may carry credentials (kubectl never does, proxies and scripts might). */
const sensitive = /token|secret|password|passwd|key|auth|credential|signature|sig$/i;

/**
 * The query string of a request URL for logging: parameters in order, values of sensitive-looking names
 * replaced by `[REDACTED]`. Empty string when there is no query.
 */
export function safeQuery(search: string): string {
  const query = search.startsWith('?') ? search.slice(1) : search;
  if (query === '') return '';
  const params = new URLSearchParams(query);
  const out: string[] = [];
  for (const [name, value] of params) {
    out.push(`${encodeURIComponent(name)}=${sensitive.test(name) ? '[REDACTED]' : encodeURIComponent(value)}`);
  }
  return out.join('&');
}
