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

/**
 * A request URI (path and query) for the audit log and trace spans: as received, unless a parameter has
 * a sensitive-looking name, then with the query rewritten by `safeQuery` (kube records the URI verbatim;
 * a token a script put in a query string would otherwise be copied into every audit event and span).
 */
export function safeRequestUri(uri: string): string {
  const q = uri.indexOf('?');
  if (q < 0) return uri;
  const names = [...new URLSearchParams(uri.slice(q + 1)).keys()];
  return names.some((n) => sensitive.test(n)) ? `${uri.slice(0, q)}?${safeQuery(uri.slice(q + 1))}` : uri;
}
