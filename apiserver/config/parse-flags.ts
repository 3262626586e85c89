import { parseDuration } from './duration.js';
import { FlagError } from './flag-error.js';
import { flagTable, type FlagSpec } from './flags.js';

export type FlagValue = string | number | boolean | readonly string[] | undefined;

/** Parsed flags: every flag of the table has a value (its default when not given). */
export interface ParsedFlags {
  /** `--help` / `-h` was given: print usage and exit 0, nothing else is validated. */
  readonly help: boolean;
  /** Names of the flags given explicitly on the command line. */
  readonly given: ReadonlySet<string>;
  string(name: string): string | undefined;
  int(name: string): number;
  bool(name: string): boolean;
  /** Milliseconds. */
  duration(name: string): number;
  list(name: string): readonly string[];
  /** Every occurrence of a `stringArray` flag, whole (never split at commas). */
  stringArray(name: string): readonly string[];
}

const trueWords = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const falseWords = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool: undefined for anything but its twelve spellings. */
export function parseGoBool(text: string): boolean | undefined {
  if (trueWords.has(text)) return true;
  if (falseWords.has(text)) return false;
  return undefined;
}

/**
 * Parses `argv` (without node and script) against the flag table. Accepts `--flag=value`, `--flag value`,
 * `--bool`, `--bool=false`. A repeated flag: the last one wins (as pflag for scalar flags), except a
 * `repeatable` list, whose occurrences add up. Throws
 * `FlagError` for an unknown flag, a missing or malformed value, or a positional argument.
 */
export function parseFlags(argv: readonly string[], table: readonly FlagSpec[] = flagTable): ParsedFlags {
  const raw = new Map<string, string>();
  // `stringArray` occurrences, kept apart: their values may contain commas.
  const occurrences = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      throw new FlagError(`unexpected argument "${arg}": this command takes only flags (see --help)`);
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const spec = table.find((f) => f.name === name);
    if (spec === undefined) throw new FlagError(`unknown flag: --${name} (see --help)`);
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else if (spec.type === 'bool') {
      value = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new FlagError(`flag needs an argument: --${name}`);
      value = next;
      i++;
    }
    if (spec.type === 'stringArray') occurrences.set(name, [...(occurrences.get(name) ?? []), value]);
    const before = raw.get(name);
    raw.set(name, spec.repeatable === true && before !== undefined ? `${before},${value}` : value);
  }

  const values = new Map<string, FlagValue>();
  for (const spec of table) {
    const given = raw.get(spec.name);
    values.set(spec.name, spec.type === 'stringArray'
      ? (occurrences.get(spec.name) ?? (spec.default === '' ? [] : [spec.default]))
      : convert(spec, given ?? spec.default, given !== undefined));
  }

  function get(name: string, type: FlagSpec['type']): FlagValue {
    const spec = table.find((f) => f.name === name);
    if (spec === undefined || (spec.type !== type && !(type === 'string' && spec.type === 'enum'))) {
      throw new Error(`programming error: flag --${name} is not declared as ${type}`);
    }
    return values.get(name);
  }

  return {
    help,
    given: new Set(raw.keys()),
    string: (name) => get(name, 'string') as string | undefined,
    int: (name) => get(name, 'int') as number,
    bool: (name) => get(name, 'bool') as boolean,
    duration: (name) => get(name, 'duration') as number,
    list: (name) => get(name, 'list') as readonly string[],
    stringArray: (name) => get(name, 'stringArray') as readonly string[],
  };
}

function convert(spec: FlagSpec, text: string, given: boolean): FlagValue {
  const bad = (why: string): FlagError => new FlagError(`invalid value "${text}" for flag --${spec.name}: ${why}`);
  switch (spec.type) {
    case 'string':
      return text === '' ? undefined : text;
    case 'enum':
      if (text === '') {
        if (given) throw bad(`must be one of ${spec.values?.join(', ')}`);
        return undefined;
      }
      if (!(spec.values ?? []).includes(text)) throw bad(`must be one of ${spec.values?.join(', ')}`);
      return text;
    case 'int': {
      if (!/^[+-]?\d+$/.test(text)) throw bad('not an integer');
      const n = Number(text);
      if (!Number.isSafeInteger(n)) throw bad('out of range');
      return n;
    }
    case 'bool': {
      const b = parseGoBool(text);
      if (b === undefined) throw bad('not a boolean (true or false)');
      return b;
    }
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === undefined) throw bad('not a duration (e.g. 30s, 5m, 1h30m)');
      if (ms < 0) throw bad('must not be negative');
      return ms;
    }
    case 'list':
      return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    case 'stringArray':
      return [text];
  }
}
