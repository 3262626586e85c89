import { parseDuration } from '../../apiserver/config/duration.js';
import { FlagError } from '../../apiserver/config/flag-error.js';
import { flagTable } from '../../apiserver/config/flags.js';
import { helpText } from '../../apiserver/config/help.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import { buildConfig } from '../../apiserver/config/server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

describe('Go durations', () => {
  it.each([
    ['0', 0], ['5m', 300_000], ['30s', 30_000], ['1h30m', 5_400_000], ['1.5h', 5_400_000], ['300ms', 300],
    ['2m0s', 120_000], ['1us', 0.001], ['+10s', 10_000], ['-1s', -1000],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '5', 'm', '1x', '1h 30m', '1.2.3s', 's5'])('rejects %j', (text) => expect(parseDuration(text)).toBeUndefined());

});

describe('flags', () => {
  it('uses the documented defaults', () => {
    const c = config();
    expect(c).toMatchObject({
      bindAddress: '0.0.0.0', securePort: 6443, tlsSans: [], storage: { backend: 'memory' }, storagePrefix: '/registry',
      compactionIntervalMs: 300_000, dataDir: '/cwd/data', groupDomain: 'platform.io', logLevel: 'info',
      maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, requestTimeoutMs: 60_000,
      shutdownDelayMs: 20_000, shutdownTimeoutMs: 30_000,
    });
    expect(c.shutdownSendRetryAfter).toBeUndefined();
    expect(config('--shutdown-send-retry-after=false').shutdownSendRetryAfter).toBe(false);
    expect(c.tls).toBeUndefined();
    expect(c.tokenAuthFile).toBeUndefined();
  });

  it('accepts --flag=value and --flag value, resolving paths against the working directory', () => {
    const c = config('--secure-port=8443', '--data-dir', 'd', '--tls-sans=a.example, 10.0.0.1', '--token-auth-file', '/etc/t.csv',
      '--etcd-compaction-interval=0', '--tls-cert-file=c.pem', '--tls-private-key-file', 'k.pem');
    expect(c.securePort).toBe(8443);
    expect(c.dataDir).toBe('/cwd/d');
    expect(c.tlsSans).toEqual(['a.example', '10.0.0.1']);
    expect(c.tokenAuthFile).toBe('/etc/t.csv');
    expect(c.compactionIntervalMs).toBe(0);
    expect(c.tls).toEqual({ certFile: '/cwd/c.pem', keyFile: '/cwd/k.pem' });
  });

  it('selects the etcd backend from --etcd-servers and checks --storage agrees', () => {
    expect(config('--etcd-servers=http://127.0.0.1:2379,http://127.0.0.2:2379').storage)
      .toEqual({ backend: 'etcd', endpoints: ['http://127.0.0.1:2379', 'http://127.0.0.2:2379'] });
    expect(config('--storage=etcd', '--etcd-servers=http://e:2379').storage.backend).toBe('etcd');
    expect(() => config('--storage=memory', '--etcd-servers=http://e:2379')).toThrow(/contradicts --etcd-servers/);
    expect(() => config('--storage=etcd')).toThrow(/needs --etcd-servers/);
    expect(() => config('--etcd-servers=localhost:2379')).toThrow(/--etcd-servers: not an http\(s\) URL/);
  });

  it('parses booleans like pflag', () => {
    const table = [...flagTable, { name: 'x', type: 'bool' as const, default: 'false', help: '' }];
    expect(parseFlags(['--x'], table).bool('x')).toBe(true);
    expect(parseFlags(['--x=false'], table).bool('x')).toBe(false);
    expect(parseFlags(['--x=True'], table).bool('x')).toBe(true);
    expect(parseFlags([], table).bool('x')).toBe(false);
    expect(() => parseFlags(['--x=yes'], table)).toThrow('invalid value "yes" for flag --x: not a boolean (true or false)');
  });

  it.each([
    [['--nope'], 'unknown flag: --nope (see --help)'],
    [['--secure-port=abc'], 'invalid value "abc" for flag --secure-port: not an integer'],
    [['--secure-port=70000'], 'invalid value "70000" for flag --secure-port: must be between 0 and 65535'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['--request-timeout=soon'], 'invalid value "soon" for flag --request-timeout: not a duration (e.g. 30s, 5m, 1h30m)'],
    [['--etcd-compaction-interval=-5m'], 'invalid value "-5m" for flag --etcd-compaction-interval: must not be negative'],
    [['--log-level=loud'], 'invalid value "loud" for flag --log-level: must be one of trace, debug, info, warn, error, fatal'],
    [['--bind-address=localhost'], 'invalid value "localhost" for flag --bind-address: not an IP address'],
    [['--tls-cert-file=c.pem'], '--tls-cert-file and --tls-private-key-file must be given together'],
    [['--group-domain=Bad_Domain'], 'invalid value "Bad_Domain" for flag --group-domain: not a DNS domain like platform.io'],
    [['--etcd-prefix=registry'], 'invalid value "registry" for flag --etcd-prefix: must start with "/" and not end with "/"'],
    [['stray'], 'unexpected argument "stray": this command takes only flags (see --help)'],
  ])('rejects %j with a one-line FlagError', (argv, message) => {
    let error: unknown;
    try {
      config(...argv);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FlagError);
    expect((error as Error).message).toBe(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('--feature-gates: kube syntax, repeatable, kube: prefix, defaults from the gate table', () => {
    expect(config().features.enabled('WatchList')).toBe(false);
    expect(config().features.enabled('APIResponseCompression')).toBe(true);
    const c = config('--feature-gates=WatchList=true, APIResponseCompression=False', '--feature-gates', 'CBORServingAndStorage=1');
    expect(c.features.enabled('WatchList')).toBe(true);
    expect(c.features.enabled('APIResponseCompression')).toBe(false);
    expect(c.features.enabled('CBORServingAndStorage')).toBe(true);
    expect(config('--feature-gates=kube:WatchList=true,kube:WatchList=false').features.enabled('WatchList')).toBe(false);
    expect(config('--feature-gates=AllBeta=true').features.enabled('WatchList')).toBe(true);
    expect(config('--feature-gates=RemainingItemCount=true').features.warnings).toEqual([
      'Setting GA feature gate RemainingItemCount=true. It will be removed in a future release.',
    ]);
  });

  it.each([
    [['--feature-gates=NoSuchGate=true'], 'unrecognized feature gate: NoSuchGate'],
    [['--feature-gates=WatchList=true', '--feature-gates=Bogus=false'], 'unrecognized feature gate: Bogus'],
    [['--feature-gates=RemainingItemCount=false'], 'cannot set feature gate RemainingItemCount to false, feature is locked to true'],
    [['--feature-gates=WatchList'], 'missing bool value for WatchList'],
    [['--feature-gates=WatchList=yes'], 'invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--feature-gates=wardle:A=true'], 'component not registered: wardle'],
    [['--feature-gates=kube:WatchList=true,APIResponseCompression=false'],
      'set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use'],
  ])('--feature-gates %j is a FlagError with kube\'s message', (argv, message) => {
    let error: unknown;
    try {
      config(...argv);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FlagError);
    expect((error as Error).message).toBe(message);
  });

  it('lists the alpha and beta gates under --feature-gates in --help, as kube does', () => {
    const text = helpText('platform-apiserver');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.trimStart().startsWith('--feature-gates colonSeparatedMultimapStringString'));
    expect(at).toBeGreaterThan(0);
    const gateLines = lines.slice(at + 1).filter((l) => /^\s+kube:/.test(l)).map((l) => l.trim());
    expect(gateLines).toContain('kube:AllAlpha=true|false (ALPHA - default=false)');
    expect(gateLines).toContain('kube:APIResponseCompression=true|false (BETA - default=true)');
    expect(gateLines).toContain('kube:CBORServingAndStorage=true|false (ALPHA - default=false)');
    expect(gateLines).toContain('kube:WatchList=true|false (BETA - default=false)');
    expect(text).not.toContain('kube:RemainingItemCount');
    // The next flag still starts its own line after the list.
    expect(lines[at + 1 + gateLines.length]).toMatch(/^\s+--max-requests-inflight /);
  });

  it('takes --help before anything else', () => {
    expect(parseFlags(['--secure-port=1', '--help']).help).toBe(true);
    expect(parseFlags(['-h']).help).toBe(true);
  });

  it('lists every flag with its default in --help', () => {
    const text = helpText('platform-apiserver');
    for (const f of flagTable) {
      expect(text).toContain(`--${f.name}`);
      if (f.default !== '') expect(text).toMatch(new RegExp(`--${f.name} .*\\(default \\[?${f.default.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    }
    expect(text).toContain('(default 6443)');
    expect(text).toContain('(default 5m)');
  });
});
