import { gunzipSync } from 'node:zlib';
import { naming } from '../naming/naming.js';
import { StatusError } from '../errors/status-error.js';
import { encodeJson, encodeYaml, wantsPretty } from './encode.js';
import { acceptsGzip, GZIP_THRESHOLD_BYTES, gzipBody, shouldGzip } from './gzip.js';
import { OBJECT_BODY_FORMATS, PATCH_BODY_FORMATS, requestContentType } from './request-content-type.js';

const n = naming('platform.io');

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('requestContentType', () => {
  it.each([
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['Application/YAML', 'yaml'],
    ['application/vnd.kubernetes.protobuf', 'protobuf'],
    ['application/vnd.platform.protobuf', 'protobuf'],
  ])('object body %s is %s', (header, want) => {
    expect(requestContentType(header, OBJECT_BODY_FORMATS, n)).toBe(want);
  });

  it.each([
    ['application/json-patch+json', 'json-patch'],
    ['application/merge-patch+json', 'merge-patch'],
    ['application/merge-patch+json; charset=UTF-8', 'merge-patch'],
    ['application/strategic-merge-patch+json', 'strategic-merge-patch'],
    ['application/apply-patch+yaml', 'apply-patch-yaml'],
  ])('patch body %s is %s', (header, want) => {
    expect(requestContentType(header, PATCH_BODY_FORMATS, n)).toBe(want);
  });

  it('defaults object bodies to JSON but not patches', () => {
    expect(requestContentType(undefined, OBJECT_BODY_FORMATS, n)).toBe('json');
    expect(requestContentType('', OBJECT_BODY_FORMATS, n)).toBe('json');
    expect(status(() => requestContentType(undefined, PATCH_BODY_FORMATS, n)).code).toBe(415);
  });

  it('answers 415 with the Kubernetes message', () => {
    const e = status(() => requestContentType('text/plain', OBJECT_BODY_FORMATS, n));
    expect(e.code).toBe(415);
    expect(e.reason).toBe('UnsupportedMediaType');
    expect(e.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf',
    );
    expect(status(() => requestContentType('application/json', PATCH_BODY_FORMATS, n)).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    expect(status(() => requestContentType('garbage', OBJECT_BODY_FORMATS, n)).code).toBe(415);
    const k8s = naming('k8s.io');
    expect(status(() => requestContentType('application/xml', OBJECT_BODY_FORMATS, k8s)).message).toMatch(/application\/vnd\.kubernetes\.protobuf$/);
  });
});

describe('encode', () => {
  const obj = { kind: 'ConfigMap', metadata: { name: 'x', labels: { b: '1', a: 'true' } }, data: { script: 'line1\nline2\n', empty: '' }, list: [{ n: 1 }, 'y'], nothing: null, gone: undefined };

  it('writes compact or two-space pretty JSON', () => {
    expect(encodeJson({ a: [1], b: { c: 'd' } })).toBe('{"a":[1],"b":{"c":"d"}}');
    expect(encodeJson({ a: [1], b: {} }, true)).toBe('{\n  "a": [\n    1\n  ],\n  "b": {}\n}');
  });

  it('writes YAML as the Kubernetes serializer does', () => {
    expect(encodeYaml(obj)).toBe(
      [
        'data:',
        '  empty: ""',
        '  script: |',
        '    line1',
        '    line2',
        'kind: ConfigMap',
        'list:',
        '- "n": 1',
        '- "y"',
        'metadata:',
        '  labels:',
        '    a: "true"',
        '    b: "1"',
        '  name: x',
        'nothing: null',
        '',
      ].join('\n'),
    );
    const long = 'word '.repeat(100).trim();
    expect(encodeYaml({ a: long })).toBe(`a: ${long}\n`);
    expect(encodeYaml({ a: 'yes', b: 'on', c: '0777', d: '~' })).toBe('a: "yes"\nb: "on"\nc: "0777"\nd: "~"\n');
  });

  it('decides pretty printing as upstream', () => {
    const q = (s: string): URLSearchParams => new URLSearchParams(s);
    expect(wantsPretty(q('pretty=true'), undefined)).toBe(true);
    expect(wantsPretty(q('pretty=1'), 'kubectl/v1.32')).toBe(true);
    expect(wantsPretty(q('pretty=false'), 'curl/8.0')).toBe(false);
    expect(wantsPretty(q('pretty=yes'), 'curl/8.0')).toBe(false);
    expect(wantsPretty(q(''), 'curl/8.0')).toBe(true);
    expect(wantsPretty(q(''), 'Mozilla/5.0 (X11)')).toBe(true);
    expect(wantsPretty(q(''), 'kubectl/v1.32')).toBe(false);
    expect(wantsPretty(q(''), undefined, true)).toBe(true);
  });
});

describe('gzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate, GZIP', true],
    ['x-gzip', true],
    ['gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['*', false],
    ['deflate', false],
    ['', false],
  ])('Accept-Encoding %j -> %s', (header, want) => {
    expect(acceptsGzip(header)).toBe(want);
  });

  it('compresses only bodies over 128 KiB, and only when enabled', () => {
    expect(shouldGzip('gzip', GZIP_THRESHOLD_BYTES)).toBe(false);
    expect(shouldGzip('gzip', GZIP_THRESHOLD_BYTES + 1)).toBe(true);
    expect(shouldGzip(undefined, GZIP_THRESHOLD_BYTES + 1)).toBe(false);
    expect(shouldGzip('gzip', GZIP_THRESHOLD_BYTES + 1, false)).toBe(false);
  });

  it('produces gzip that decompresses to the input', async () => {
    const body = JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => ({ name: `n${i}` })) });
    const z = await gzipBody(body);
    expect(z.length).toBeLessThan(body.length);
    expect(gunzipSync(z).toString()).toBe(body);
  });
});
