/**
 * The query string as kube-apiserver reads it (Go's `url.ParseQuery`, whose errors `URL.Query()` drops): a
 * pair holding a `;` or a malformed percent-escape (`%zz`, a lone `%`) is left out, the rest decoded as
 * usual (`+` is a space). So `?watch=false%zz` is a GET, as on Kubernetes, and not a watch that the
 * long-running check (which never sees a `true`) would time out.
 */
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

export function parseQuery(querystring: string): URLSearchParams {
  if (!querystring.includes('%') && !querystring.includes(';')) return new URLSearchParams(querystring);
  const kept = querystring.split('&').filter((pair) => !pair.includes(';') && !BAD_ESCAPE.test(pair));
  return new URLSearchParams(kept.join('&'));
}
