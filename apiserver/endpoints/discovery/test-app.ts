/**
 * A tiny Koa app for the endpoint tests: renders StatusErrors, runs one filter, answers 404 after it;
 * listens on a loopback port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { notFound } from '../../errors/constructors.js';
import { statusBody } from '../../errors/status-body.js';
import { isStatusError } from '../../errors/status-error.js';
import type { Filter, RequestState } from '../../request/request-state.js';

export interface TestApp {
  readonly url: string;
  get(path: string, headers?: Record<string, string>, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestApp(filter: Filter): Promise<TestApp> {
  const app = new Koa<RequestState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!isStatusError(err)) throw err;
      ctx.status = err.code;
      ctx.body = statusBody(err);
    }
  });
  app.use(filter);
  app.use(async () => {
    throw notFound();
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get: (path, headers = {}, init = {}) => fetch(url + path, { headers, ...init }),
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
