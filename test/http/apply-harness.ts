/**
 * What the server-side apply HTTP tests share (test/http/apply*.test.ts): managedFields readers, the exact
 * 409 body of an apply conflict, and `describeApply`, which runs a file's cases on both backends with one
 * server and namespace and the request helpers the cases use.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

export const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
export const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
export const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };

export type Obj = Record<string, any>;
export interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Obj;
  subresource?: string;
}

export const entries = (o: Obj): Entry[] => o.metadata.managedFields ?? [];
export const entryOf = (o: Obj, manager: string, operation = 'Apply', subresource?: string): Entry | undefined =>
  entries(o).find((e) => e.manager === manager && e.operation === operation && e.subresource === subresource);
export const fieldsOf = (o: Obj, manager: string, operation = 'Apply', subresource?: string): Obj | undefined => entryOf(o, manager, operation, subresource)?.fieldsV1;

export function status409(res: ApiResponse, message: string, causes: { field: string; message: string }[]): void {
  expect({ status: res.status, body: res.json() }).toEqual({
    status: 409,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Conflict',
      details: { causes: causes.map((c) => ({ reason: 'FieldManagerConflict', message: c.message, field: c.field })) },
      code: 409,
    },
  });
}

export interface ApplyHarness {
  /** The server and the namespace of the file; set once its beforeAll ran (use them inside cases). */
  readonly api: TestApi;
  readonly ns: string;
  cmPath(name: string): string;
  ptPath(name: string): string;
  nodePath(name: string): string;
  cm(name: string, data?: Record<string, string>, meta?: Obj): Obj;
  /** PATCH as an apply (a string body is sent as is); `manager` undefined sends no fieldManager. */
  apply(path: string, body: unknown, manager: string | undefined, query?: Record<string, string>, headers?: Record<string, string>): Promise<ApiResponse>;
  /** PATCH as a merge patch under `manager`. */
  merge(path: string, body: unknown, manager: string, headers?: Record<string, string>): Promise<ApiResponse>;
  get(path: string): Promise<Obj>;
  /** Applies and expects a 2xx, returning the object. */
  ok(path: string, body: unknown, manager: string, query?: Record<string, string>): Promise<Obj>;
}

/** The cases of `body` once per backend (one etcd per file), on one server and namespace. */
export function describeApply(body: (h: ApplyHarness) => void): void {
  const all = backends();
  afterAll(() => stopBackends(all));
  describeBackends(all, (b) => {
    let api: TestApi;
    let ns: string;
    const cmPath = (name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;
    const ptPath = (name: string): string => `/api/v1/namespaces/${ns}/podtemplates/${name}`;
    const nodePath = (name: string): string => `/api/v1/nodes/${name}`;
    const cm = (name: string, data?: Record<string, string>, meta: Obj = {}): Obj => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ...meta },
      ...(data === undefined ? {} : { data }),
    });
    const apply = (path: string, body: unknown, manager: string | undefined, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      api.request('PATCH', path, {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { ...APPLY, ...headers },
        query: { ...(manager === undefined ? {} : { fieldManager: manager }), ...query },
      });
    const merge = (path: string, body: unknown, manager: string, headers: Record<string, string> = {}) =>
      api.request('PATCH', path, { body, query: { fieldManager: manager }, headers });
    const get = async (path: string): Promise<Obj> => (await api.request('GET', path)).json();
    /** Applies and expects a 2xx, returning the object. */
    const ok = async (path: string, body: unknown, manager: string, query: Record<string, string> = {}): Promise<Obj> => {
      const res = await apply(path, body, manager, query);
      if (res.status !== 200 && res.status !== 201) throw new Error(`apply ${path} as ${manager}: ${res.status} ${res.text()}`);
      return res.json();
    };

    beforeAll(async () => {
      api = await b.start();
      ns = await createNamespace(api, uniqueName('apply'));
    });

    body({
      get api() {
        return api;
      },
      get ns() {
        return ns;
      },
      cmPath,
      ptPath,
      nodePath,
      cm,
      apply,
      merge,
      get,
      ok,
    });
  });
}
