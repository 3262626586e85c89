import { gunzipSync } from 'node:zlib';
import { naming } from '../naming/naming.js';
import { StatusError } from '../errors/status-error.js';
import { decodeJsonBody, decodeYamlBody, duplicateFieldMessage } from './decode-body.js';
import { encodeJson, encodeYaml, wantsPretty } from './encode.js';
import { acceptsGzip, GZIP_THRESHOLD_BYTES, gzipBody, shouldGzip } from './gzip.js';
import { findJsonDuplicates } from './json-duplicates.js';
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

describe('decode bodies', () => {
  it('parses JSON and finds duplicate keys with their paths', () => {
    const text = '{"a":1,"spec":{"containers":[{"name":"x","name":"y"},{"ports":[{"p":1,"p":2}]}],"x\\"y":1,"x\\"y":2},"a":3}';
    const got = decodeJsonBody(text);
    expect((got.value as { a: number }).a).toBe(3);
    expect(got.duplicates).toEqual([{ path: 'spec.containers[0].name' }, { path: 'spec.containers[1].ports[0].p' }, { path: 'spec.x"y' }, { path: 'a' }]);
    expect(decodeJsonBody(text, false).duplicates).toEqual([]);
    expect(findJsonDuplicates('{"a":"{\\"b\\":1,\\"b\\":2}","b":[1,{"c":"]"}]}')).toEqual([]);
    expect(duplicateFieldMessage({ path: 'spec.replicas' })).toBe('duplicate field "spec.replicas"');
  });

  it('rejects malformed JSON with 400', () => {
    const e = status(() => decodeJsonBody('{"a":'));
    expect(e.code).toBe(400);
    expect(e.message).toMatch(/^json parse error: /);
  });

  it('parses YAML, keeps the last duplicate and reports it with its line', () => {
    const got = decodeYamlBody('metadata:\n  name: a\n  name: b\nspec:\n  list:\n  - k: 1\n    k: 2\n');
    expect(got.value).toEqual({ metadata: { name: 'b' }, spec: { list: [{ k: 2 }] } });
    expect(got.duplicates).toEqual([{ path: 'metadata.name', line: 3 }, { path: 'spec.list[0].k', line: 7 }]);
    expect(duplicateFieldMessage(got.duplicates[0]!)).toBe('line 3: key "name" already set in map');
    expect(decodeYamlBody('{"a": 1}').value).toEqual({ a: 1 });
    expect(decodeYamlBody('').value).toBeNull();
    expect(decodeYamlBody('---\na: 1\n---\n').value).toEqual({ a: 1 });
  });

  it('rejects several documents and syntax errors with 400', () => {
    const multi = status(() => decodeYamlBody('a: 1\n---\nb: 2\n'));
    expect(multi.code).toBe(400);
    expect(multi.message).toBe('the request body must contain exactly one YAML document, found 2');
    const bad = status(() => decodeYamlBody('a: 1\n b: 2\n  - c'));
    expect(bad.code).toBe(400);
    expect(bad.message).toMatch(/^error converting YAML to JSON: yaml: line \d+: /);
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
