/**
 * A conversion webhook's `clientConfig`, as Kubernetes v1.32 validates webhook client configurations
 * (k8s.io/apiserver `util/webhook` ValidateWebhookURL / ValidateWebhookService / ValidateCABundle), with
 * its messages:
 *
 * - `url`: `https` only, a host, no user information, no fragment, no query (`; desired format:
 *   https://host[/path]` where Kubernetes adds it);
 * - `service`: name and namespace required, a valid port, a path that starts with `/` and whose segments
 *   are DNS subdomains;
 * - `caBundle`: PEM holding at least one certificate (checked only where the caller asks: Kubernetes lets a
 *   definition that is not Established yet carry a bad bundle).
 */
import { X509Certificate } from 'node:crypto';
import { FieldPath, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain, isValidPortNum } from '../../../validation/names.js';

const FORM = '; desired format: https://host[/path]';

interface ParsedUrl {
  readonly scheme: string;
  readonly user: string | undefined;
  readonly host: string;
  readonly query: string;
  readonly fragment: string;
}

/** The parts of a URL as Go's `url.Parse` splits them (scheme, userinfo, host with port, query, fragment). */
function parseUrl(raw: string): ParsedUrl {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) [rest, fragment] = [rest.slice(0, hash), rest.slice(hash + 1)];
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) [rest, query] = [rest.slice(0, q), rest.slice(q + 1)];
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m !== null) [scheme, rest] = [m[1]!.toLowerCase(), rest.slice(m[0].length)];
  let user: string | undefined;
  let host = '';
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) [user, authority] = [authority.slice(0, at), authority.slice(at + 1)];
    host = authority;
  }
  return { scheme, user, host, query, fragment };
}

export function validateWebhookUrl(p: FieldPath, url: string): FieldError[] {
  const u = parseUrl(url);
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalidValue(p, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === '') errs.push(invalidValue(p, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(invalidValue(p, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(invalidValue(p, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(invalidValue(p, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

export function validateWebhookService(p: FieldPath, name: string, namespace: string, path: string | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(required(p.child('name'), 'service name is required'));
  if (namespace === '') errs.push(required(p.child('namespace'), 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(invalidValue(p.child('port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (path === undefined || path === '' || path === '/') return errs;
  if (path === '//') return [...errs, invalidValue(p.child('path'), path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(invalidValue(p.child('path'), path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(invalidValue(p.child('path'), path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(invalidValue(p.child('path'), path, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** `caBundle` (base64 in JSON) must hold PEM certificates. */
export function validateCABundle(p: FieldPath, caBundle: string): FieldError[] {
  const pem = Buffer.from(caBundle, 'base64').toString('latin1');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  let parsed = 0;
  for (const block of blocks) {
    try {
      new X509Certificate(block);
      parsed++;
    } catch {
      return [invalidValue(p, caBundle, 'failed to parse certificate')];
    }
  }
  return parsed === 0 ? [invalidValue(p, caBundle, 'data does not contain any valid RSA or ECDSA certificates')] : [];
}
