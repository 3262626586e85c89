/**
 * The scale sub-resource's reading, writing and validation of the replicas paths (Kubernetes' unstructured
 * accessor semantics and messages), and what customResourceKinds declares from a CRD: the scale paths,
 * their validation hooks, and the deprecated versions' warnings.
 */
import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import { customResourceKinds } from './kinds/apiextensions/custom-resource-kinds.js';
import {
  customResourceScale, nestedInteger, readScale, scaleObject, ScalePathError, setNested, validateScaleSpec, validateScaleStatus,
} from './scale-subresource.js';
import { errorString } from '../validation/field-error.js';

const sub = customResourceScale({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' });
const obj = (rest: object): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' }, ...rest });

describe('reading and writing paths', () => {
  test('missing steps and nulls are "not found"; other types are accessor errors with Go wording', () => {
    expect(nestedInteger({ spec: {} }, '.spec.replicas')).toEqual({ found: false });
    expect(nestedInteger({ spec: null }, '.spec.replicas')).toEqual({ found: false });
    expect(nestedInteger({ spec: { replicas: 3 } }, 'spec.replicas')).toEqual({ found: true, value: 3 });
    expect(() => nestedInteger({ spec: { replicas: 'x' } }, '.spec.replicas')).toThrow(new ScalePathError('.spec.replicas accessor error: x is of the type string, expected int64'));
    expect(() => nestedInteger({ spec: { replicas: 1.5 } }, '.spec.replicas')).toThrow('.spec.replicas accessor error: 1.5 is of the type float64, expected int64');
    expect(() => nestedInteger({ spec: [1, 2] }, '.spec.replicas')).toThrow('.spec.replicas accessor error: [1 2] is of the type []interface {}, expected map[string]interface{}');
  });

  test('setNested creates missing objects and refuses a non-object step', () => {
    const o: Record<string, unknown> = {};
    setNested(o, '.spec.scaling.replicas', 2);
    expect(o).toEqual({ spec: { scaling: { replicas: 2 } } });
    expect(() => setNested({ spec: 'x' }, '.spec.replicas', 1)).toThrow('value cannot be set because .spec is not a map[string]interface{}');
  });

  test('the Scale of an object: Go omitempty for spec replicas 0 and an empty selector', () => {
    const values = readScale(obj({ spec: { replicas: 0 }, status: {} }), sub);
    expect(values).toEqual({ specReplicas: 0, statusReplicas: 0, selector: '' });
    expect(scaleObject(obj({}), values)).toEqual({
      apiVersion: 'autoscaling/v1', kind: 'Scale',
      metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: {}, status: { replicas: 0 },
    });
    const custom = { ...sub, selector: () => 'app=x' };
    expect(readScale(obj({ spec: { replicas: 2 }, status: { selector: 'ignored' } }), custom).selector).toBe('app=x');
  });
});

describe('validation of the scale paths (Kubernetes ValidateScaleSpec / ValidateScaleStatus)', () => {
  test('negative, too large and mistyped values; absent values pass', () => {
    expect(validateScaleSpec(obj({ spec: {} }), sub)).toEqual([]);
    expect(validateScaleSpec(obj({ spec: { replicas: -1 } }), sub).map(errorString)).toEqual(['.spec.replicas: Invalid value: -1: should be a non-negative integer']);
    expect(validateScaleSpec(obj({ spec: { replicas: 2 ** 31 } }), sub).map(errorString)).toEqual(['.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647']);
    expect(validateScaleSpec(obj({ spec: { replicas: 'x' } }), sub).map(errorString)).toEqual([
      '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64',
    ]);
    expect(validateScaleStatus(obj({ status: { replicas: -2, selector: 5 } }), sub).map(errorString)).toEqual([
      '.status.replicas: Invalid value: -2: should be a non-negative integer',
      '.status.selector: Invalid value: "": .status.selector accessor error: 5 is of the type int64, expected string',
    ]);
  });
});

describe('customResourceKinds: scale and deprecation', () => {
  const K8S = naming('k8s.io');
  const version = (name: string, extra: object = {}) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ...extra });
  const crd = (versions: object[]): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions },
  });

  test('scale paths become the kind\'s scale sub-resource with its checks; generation tracks spec only', () => {
    const [k] = customResourceKinds(crd([version('v1', { subresources: { scale: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n' } } })]), K8S);
    expect(k!.scale).toEqual({ specReplicasPath: '.spec.n', statusReplicasPath: '.status.n' });
    expect(k!.subresources).toBeUndefined();
    expect(k!.prepareForUpdate).toBeUndefined();
    expect(k!.validate!(obj({ spec: { n: -1 }, status: { n: -1 } }), undefined as never).map((e) => e.field)).toEqual(['.spec.n', '.status.n']);
    expect(k!.validateStatusUpdate!(obj({ spec: { n: -1 }, status: { n: -1 } }), obj({}), undefined as never).map((e) => e.field)).toEqual(['.status.n']);
  });

  test('deprecated versions: own text, or the default naming the best newer served non-deprecated version', () => {
    const kinds = customResourceKinds(crd([
      version('v1'), version('v2'), version('v3', { served: false }), version('v2beta1', { deprecated: true }),
      version('v1alpha1', { deprecated: true, deprecationWarning: 'gone soon' }), version('v4', { deprecated: true }),
    ]), K8S);
    const warning = (v: string) => kinds.find((k) => k.version === v)!.deprecationWarning;
    expect(warning('v1')).toBeUndefined();
    expect(warning('v2beta1')).toBe('example.com/v2beta1 Widget is deprecated; use example.com/v2 Widget');
    expect(warning('v1alpha1')).toBe('gone soon');
    expect(warning('v4')).toBe('example.com/v4 Widget is deprecated');
  });
});
