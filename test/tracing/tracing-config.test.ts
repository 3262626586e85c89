import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError } from '../../apiserver/config/flag-error.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import { buildConfig } from '../../apiserver/config/server-config.js';
import { parseTracingConfig, readTracingConfigFile } from '../../apiserver/tracing/tracing-config.js';

const doc = (body: string, apiVersion = 'apiserver.config.k8s.io/v1beta1'): string => `apiVersion: ${apiVersion}\nkind: TracingConfiguration\n${body}`;
const parse = (text: string, domain = 'platform.io') => parseTracingConfig(text, domain);

describe('TracingConfiguration', () => {
  it('defaults to rate 0 and OTLP/HTTP on localhost:4318', () => {
    expect(parse(doc(''))).toEqual({ url: 'http://localhost:4318/v1/traces', samplingRatePerMillion: 0 });
  });

  it.each(['v1alpha1', 'v1beta1', 'v1'])('accepts apiserver.config.k8s.io/%s and the group domain\'s group', (v) => {
    expect(parse(doc('samplingRatePerMillion: 100', `apiserver.config.k8s.io/${v}`)).samplingRatePerMillion).toBe(100);
    expect(parse(doc('samplingRatePerMillion: 7', `apiserver.config.platform.io/${v}`)).samplingRatePerMillion).toBe(7);
  });

  it('reads JSON too', () => {
    expect(parse('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"TracingConfiguration","endpoint":"collector:4318","samplingRatePerMillion":1000000}'))
      .toEqual({ url: 'http://collector:4318/v1/traces', samplingRatePerMillion: 1_000_000 });
  });

  it.each([
    ['localhost:4317', 'http://localhost:4317/v1/traces'],
    ['10.0.0.1:4318', 'http://10.0.0.1:4318/v1/traces'],
    ['[::1]:4318', 'http://[::1]:4318/v1/traces'],
    ['dns:///otel.example:4318', 'http://otel.example:4318/v1/traces'],
    ['http://127.0.0.1:4318', 'http://127.0.0.1:4318/v1/traces'],
    ['https://otel.example/', 'https://otel.example/v1/traces'],
    ['https://otel.example:443/otlp/v1/traces', 'https://otel.example/otlp/v1/traces'],
  ])('reads endpoint %s as %s', (endpoint, url) => {
    expect(parse(doc(`endpoint: "${endpoint}"`)).url).toBe(url);
  });

  it.each([
    ['samplingRatePerMillion: -10', 'failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -10: sampling rate must be positive'],
    ['samplingRatePerMillion: 1000001',
      'failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million'],
    ['endpoint: "unix:///var/run/otel.sock"',
      'failed to validate tracing configuration: endpoint: Invalid value: "unix:///var/run/otel.sock": unsupported scheme: unix.  Options are none, dns, http or https'],
    ['endpoint: "grpc://x:4317"\nsamplingRatePerMillion: -1',
      'failed to validate tracing configuration: [samplingRatePerMillion: Invalid value: -1: sampling rate must be positive, endpoint: Invalid value: "grpc://x:4317": unsupported scheme: grpc.'],
    ['endpoint: "bad host:4318"', 'failed to validate tracing configuration: endpoint: Invalid value: "dns://bad host:4318": parse "dns://bad host:4318"'],
    ['samplingRatePerMillion: 1.5',
      'failed to read tracing config: unable to decode tracing configuration data: json: cannot unmarshal number 1.5 into Go struct field TracingConfiguration.samplingRatePerMillion of type int32'],
    ['samplingRatePerMillion: "100"',
      'failed to read tracing config: unable to decode tracing configuration data: json: cannot unmarshal string into Go struct field TracingConfiguration.samplingRatePerMillion of type int32'],
    ['endpoint: 4318', 'failed to read tracing config: unable to decode tracing configuration data: json: cannot unmarshal number into Go struct field TracingConfiguration.endpoint of type string'],
    ['sampling: 1', 'failed to read tracing config: unable to decode tracing configuration data: strict decoding error: unknown field "sampling"'],
    ['endpoint: a:1\nendpoint: b:2', 'failed to read tracing config: unable to decode tracing configuration data: Map keys must be unique'],
  ])('refuses %j with kube\'s message', (body, message) => {
    expect(() => parse(doc(body))).toThrow(message);
  });

  it('refuses another kind, version or group', () => {
    expect(() => parse(doc('', 'apiserver.config.k8s.io/v2'))).toThrow('no kind "TracingConfiguration" is registered for version "apiserver.config.k8s.io/v2"');
    expect(() => parse(doc('', 'apiserver.config.other.io/v1'))).toThrow('is registered for version "apiserver.config.other.io/v1"');
    expect(() => parse('apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n')).toThrow('no kind "AuthenticationConfiguration" is registered');
    expect(() => parse('endpoint: a:1\n')).toThrow("Object 'Kind' is missing");
    expect(() => parse('')).toThrow("Object 'Kind' is missing");
  });

  describe('the flag', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'tracing-config-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const config = (...argv: string[]) => buildConfig(parseFlags(argv), dir);

    it('is off by default', () => {
      expect(config().tracing).toBeUndefined();
    });

    it('reads the file (relative to the working directory) into the config', () => {
      writeFileSync(join(dir, 'tracing.yaml'), doc('endpoint: otel:4318\nsamplingRatePerMillion: 100\n', 'apiserver.config.k8s.io/v1'));
      expect(config('--tracing-config-file=tracing.yaml').tracing).toEqual({ url: 'http://otel:4318/v1/traces', samplingRatePerMillion: 100 });
    });

    it('turns every problem into a command-line error (exit 2)', () => {
      writeFileSync(join(dir, 'bad.yaml'), doc('samplingRatePerMillion: -1\n'));
      const bad = (...argv: string[]): FlagError => {
        try {
          config(...argv);
        } catch (err) {
          return err as FlagError;
        }
        throw new Error('no error');
      };
      const e1 = bad('--tracing-config-file=bad.yaml');
      expect(e1).toBeInstanceOf(FlagError);
      expect(e1.message).toBe('failed to validate tracing configuration: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive');
      const e2 = bad('--tracing-config-file=missing.yaml');
      expect(e2).toBeInstanceOf(FlagError);
      expect(e2.message).toBe(`tracing-config-file ${join(dir, 'missing.yaml')} does not exist`);
      writeFileSync(join(dir, 'ok.yaml'), doc(''));
      const e3 = bad('--tracing-config-file=ok.yaml', '--feature-gates=APIServerTracing=false');
      expect(e3).toBeInstanceOf(FlagError);
      expect(e3.message).toBe('APIServerTracing feature is not enabled, but tracing config file was provided');
    });

    it('reads a file directly with readTracingConfigFile', () => {
      writeFileSync(join(dir, 'k8s.json'), JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'TracingConfiguration', samplingRatePerMillion: 5 }));
      expect(readTracingConfigFile(join(dir, 'k8s.json'), 'k8s.io')).toEqual({ url: 'http://localhost:4318/v1/traces', samplingRatePerMillion: 5 });
    });
  });
});
