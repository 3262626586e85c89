import { flagTable, type FlagSpec } from './flags.js';

/**
 * The `--help` text: usage, then every flag of the table with its argument placeholder, help and default
 * (as kube-apiserver prints them: `--secure-port int   ... (default 6443)`).
 */
export function helpText(program: string, table: readonly FlagSpec[] = flagTable): string {
  const left = table.map((f) => `      --${f.name}${f.type === 'bool' ? '' : ` ${f.arg ?? f.type}`}`);
  const width = Math.max(...left.map((l) => l.length)) + 3;
  const lines = table.map((f, i) => {
    const choices = f.type === 'enum' ? ` One of: ${f.values?.join(', ')}.` : '';
    const dflt = f.default === '' ? '' : ` (default ${f.type === 'list' ? `[${f.default}]` : f.default})`;
    // A multi-line help (the feature gates' list): later lines are indented under the first.
    const [first, ...more] = f.help.split('\n');
    return [`${left[i]!.padEnd(width)}${first}${choices}${dflt}`, ...more.map((l) => ' '.repeat(width + 2) + l)].join('\n');
  });
  return [
    `Usage: ${program} [flags]`,
    '',
    'A Kubernetes-compatible API server. Serves HTTPS; stores state in an embedded store (default) or etcd.',
    '',
    'Flags:',
    '  -h, --help'.padEnd(width) + 'Show this help and exit.',
    ...lines,
    '',
  ].join('\n');
}
