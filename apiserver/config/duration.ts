/**
 * Go `time.ParseDuration` syntax, as kube-apiserver flags take it: a sequence of decimal numbers with
 * units (`300ms`, `1.5h`, `1h30m`, `2m0s`); units ns, us, µs, ms, s, m, h; a bare `0` is allowed; a
 * leading sign is accepted but negative durations are rejected by the flags that use it.
 */
const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go duration to milliseconds (fractions of a millisecond kept). Returns undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  part.lastIndex = 0;
  while (part.lastIndex < s.length) {
    const start = part.lastIndex;
    const m = part.exec(s);
    if (m === null || m.index !== start) return undefined;
    total += Number(m[1]) * unitMs[m[2]!]!;
  }
  return sign * total;
}
