import * as errors from '../../apiserver/errors/constructors.js';
import { reasonCodes } from '../../apiserver/errors/reasons.js';
import { statusBody } from '../../apiserver/errors/status-body.js';
import { StatusError } from '../../apiserver/errors/status-error.js';

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('StatusError constructors carry Kubernetes reasons, codes and messages', () => {
  it.each([
    [errors.notFound(), 404, 'NotFound', 'the server could not find the requested resource'],
    [errors.notFound(deployments, 'web'), 404, 'NotFound', 'deployments.apps "web" not found'],
    [errors.alreadyExists(pods, 'p'), 409, 'AlreadyExists', 'pods "p" already exists'],
    [errors.conflict(deployments, 'web'), 409, 'Conflict',
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again'],
    [errors.badRequest('invalid resource version'), 400, 'BadRequest', 'invalid resource version'],
    [errors.unauthorized(), 401, 'Unauthorized', 'Unauthorized'],
    [errors.forbidden(pods, '', 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"'), 403, 'Forbidden',
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"'],
    [errors.forbidden(pods, 'p', 'no'), 403, 'Forbidden', 'pods "p" is forbidden: no'],
    [errors.forbidden(undefined, '', 'User "bob" cannot get path "/metrics"'), 403, 'Forbidden', 'forbidden: User "bob" cannot get path "/metrics"'],
    [errors.methodNotAllowed(pods, 'deletecollection'), 405, 'MethodNotAllowed', 'deletecollection is not supported on resources of kind "pods"'],
    [errors.gone('gone'), 410, 'Gone', 'gone'],
    [errors.expired(), 410, 'Expired', 'The resourceVersion for the provided watch/list is too old.'],
    [errors.tooLargeResourceVersion(12, 10), 504, 'Timeout', 'Timeout: Too large resource version: 12, current: 10'],
    [errors.requestEntityTooLarge('limit is 3145728'), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'],
    [errors.unsupportedMediaType(['application/json', 'application/yaml']), 415, 'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'],
    [errors.notAcceptable(['application/json']), 406, 'NotAcceptable', 'only the following media types are accepted: application/json'],
    [errors.tooManyRequests(), 429, 'TooManyRequests', 'Too many requests, please try again later.'],
    [errors.timeout('request did not complete within requested timeout - context deadline exceeded'), 504, 'Timeout',
      'Timeout: request did not complete within requested timeout - context deadline exceeded'],
    [errors.serviceUnavailable('storage is unavailable'), 503, 'ServiceUnavailable', 'storage is unavailable'],
    [errors.internalError('boom'), 500, 'InternalError', 'Internal error occurred: boom'],
  ])('%#: %s', (err, code, reason, message) => {
    expect(err).toBeInstanceOf(StatusError);
    expect(err.code).toBe(code);
    expect(err.reason).toBe(reason);
    expect(err.message).toBe(message);
    expect(reasonCodes[err.reason]).toBe(code);
  });

  it('invalid lists the field causes', () => {
    const one = errors.invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' },
    ]);
    expect(one.code).toBe(422);
    expect(one.message).toBe('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    expect(one.details).toEqual({
      name: 'web', group: 'apps', kind: 'Deployment',
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' }],
    });
    const two = errors.invalid({ group: '', kind: 'Pod' }, 'p', [
      { reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "P": bad' },
    ]);
    expect(two.message).toBe('Pod "p" is invalid: [spec.containers: Required value, metadata.name: Invalid value: "P": bad]');
  });

  it('renders a Status body in Kubernetes key order', () => {
    expect(JSON.stringify(statusBody(errors.unauthorized()))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
    );
    expect(statusBody(errors.tooLargeResourceVersion(5, 3, 1))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Timeout: Too large resource version: 5, current: 3', reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      code: 504,
    });
    expect(statusBody(errors.notFound(pods, 'x')).details).toEqual({ name: 'x', group: '', kind: 'pods' });
  });
});

test('a Status carries ListMeta when the error has it (410 with a fresh continue token)', () => {
  const err = new StatusError('Expired', 'too old', undefined, undefined, { continue: 'abc' });
  expect(statusBody(err)).toMatchObject({ kind: 'Status', metadata: { continue: 'abc' }, code: 410, reason: 'Expired' });
  expect(statusBody(new StatusError('NotFound', 'x')).metadata).toEqual({});
});
