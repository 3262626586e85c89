/**
 * String formats checked during validation (the subset of OpenAPI / kube-openapi formats Kubernetes
 * schemas use). An unknown format accepts every value, as upstream does. Integer formats (`int32`,
 * `int64`) are range checks done by the validator itself.
 */

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const date = /^(\d{4})-(\d{2})-(\d{2})$/;
const uuid = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const hostname = /^(?=.{1,253}$)[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/;
const duration = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h|d|w)(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h|d|w))*$/;

const validDate = (y: string, m: string, d: string): boolean => {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
};

function isIPv6(v: string): boolean {
  if (!v.includes(':')) return false;
  try {
    return new URL(`http://[${v}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

const checks: Readonly<Record<string, (v: string) => boolean>> = {
  byte: (v) => v.length % 4 === 0 && base64.test(v),
  'date-time': (v) => {
    const m = dateTime.exec(v);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61;
  },
  date: (v) => {
    const m = date.exec(v);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!);
  },
  uuid: (v) => uuid.test(v),
  ipv4: (v) => ipv4.test(v),
  ipv6: isIPv6,
  cidr: (v) => {
    const slash = v.lastIndexOf('/');
    if (slash < 0) return false;
    const ip = v.slice(0, slash);
    const bits = v.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bits)) return false;
    if (ipv4.test(ip)) return Number(bits) <= 32;
    return isIPv6(ip) && Number(bits) <= 128;
  },
  hostname: (v) => hostname.test(v),
  duration: (v) => duration.test(v),
};

/** True when `value` is valid for `format` (or the format is not checked). */
export function checkFormat(format: string, value: string): boolean {
  const check = checks[format];
  return check === undefined || check(value);
}

/** Whether a format is one this module checks (the validator skips the call for the others). */
export const isCheckedFormat = (format: string): boolean => Object.prototype.hasOwnProperty.call(checks, format);
