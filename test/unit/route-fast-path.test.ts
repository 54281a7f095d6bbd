/**
 * staticRouteFastPath: a request for a parameterless route's exact path skips the router's pattern
 * scan, and must come out exactly as the router alone would have answered it. It is built from the
 * route definitions as mounted (mountRoutes) and the routers' public match(), never the routers'
 * internals.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { defineRoute, mountRoutes, staticRouteFastPath, type RouteDef } from '../../src/platform/http/route.js';
import request from '../support/request.js';

/** What the handler saw; `viaRouter`: the router's dispatch ran (it sets ctx.matched), so the fast path did not answer. */
type Seen = { route?: string; name?: string; params?: unknown; viaRouter: boolean };

function route(operationId: string, method: 'get' | 'post', path: string, body: (ctx: Koa.Context) => void, seen: Seen[]): RouteDef {
  return defineRoute({
    method,
    path,
    operationId,
    summary: operationId,
    tags: ['t'],
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      const c = ctx as Koa.Context & { routerPath?: string; routerName?: string; matched?: unknown[] };
      seen.push({ route: c.routerPath, name: c.routerName, params: c.params, viaRouter: c.matched !== undefined });
      body(ctx);
    },
  }) as RouteDef;
}

function appWith(fast: boolean) {
  const router = new Router({ prefix: '/api' });
  const seen: Seen[] = [];
  const before = async (ctx: Koa.Context, next: Koa.Next) => {
    ctx.set('X-Before', '1');
    await next();
  };
  const defs = [
    // Registered before the static '/items/new/' that its pattern also matches: the router runs this one.
    route('itemById', 'get', '/items/:id/', (ctx) => (ctx.body = { by: 'id', id: ctx.params.id }), seen),
    route('itemsNew', 'get', '/items/new/', (ctx) => (ctx.body = { by: 'new' }), seen),
    { ...route('list', 'get', '/list/', (ctx) => (ctx.body = { list: true }), seen), before: [before] },
    route(
      'create',
      'post',
      '/list/',
      (ctx) => {
        ctx.status = 201;
        ctx.body = { created: true };
      },
      seen,
    ),
  ];
  const statics = mountRoutes(router, defs, () => [], '/api');
  const app = new Koa();
  if (fast) app.use(staticRouteFastPath([router], statics));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, seen };
}

describe('staticRouteFastPath', () => {
  const cases: [string, string][] = [
    ['GET', '/api/list/'],
    ['POST', '/api/list/'],
    ['HEAD', '/api/list/'],
    ['GET', '/api/list'], // trailing-slash variant: the router's non-strict match
    ['PUT', '/api/list/'], // 405 with Allow
    ['GET', '/api/items/7/'],
    ['GET', '/api/items/new/'], // shadowed by the earlier parameter route
    ['GET', '/api/nothing/'],
  ];

  it.each(cases)('%s %s answers as the router alone does', async (method, path) => {
    const plain = appWith(false);
    const fast = appWith(true);
    const a = await request(plain.app).request(method, path);
    const b = await request(fast.app).request(method, path);
    expect(b.status).toBe(a.status);
    expect(b.text).toBe(a.text);
    for (const h of ['allow', 'x-before', 'content-type']) expect(b.headers.get(h)).toBe(a.headers.get(h));
    expect(fast.seen.map(({ route, name, params }) => ({ route, name, params }))).toEqual(plain.seen.map(({ route, name, params }) => ({ route, name, params })));
  });

  it("leaves a later router's static route to the routers when an earlier router matches its path", async () => {
    const build = (fast: boolean) => {
      const seen: Seen[] = [];
      const first = new Router();
      const second = new Router();
      const statics = [
        ...mountRoutes(first, [route('fileByName', 'get', '/files/:name', (ctx) => (ctx.body = { by: 'first', name: ctx.params.name }), seen)]),
        ...mountRoutes(second, [
          route('readme', 'get', '/files/readme', (ctx) => (ctx.body = { by: 'second' }), seen),
          route('other', 'get', '/other', (ctx) => (ctx.body = { by: 'other' }), seen),
        ]),
      ];
      const app = new Koa();
      if (fast) app.use(staticRouteFastPath([first, second], statics));
      app.use(first.routes());
      app.use(second.routes());
      return { app, seen };
    };
    expect((await request(build(false).app).get('/files/readme')).body).toEqual({ by: 'first', name: 'readme' });
    const fast = build(true);
    expect((await request(fast.app).get('/files/readme')).body).toEqual({ by: 'first', name: 'readme' });
    // '/other' is matched by no earlier router: the fast path answers it.
    expect((await request(fast.app).get('/other')).body).toEqual({ by: 'other' });
    expect(fast.seen.map((s) => s.viaRouter)).toEqual([true, false]);
  });

  it('takes the static route without the router when it is the single match', async () => {
    const { app, seen } = appWith(true);
    const r = await request(app).get('/api/list/');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-before')).toBe('1');
    expect(seen).toEqual([{ route: '/api/list/', name: 'list', params: {}, viaRouter: false }]);
    // Without the fast path the router answers it, with the same labels.
    const plain = appWith(false);
    await request(plain.app).get('/api/list/');
    expect(plain.seen).toEqual([{ route: '/api/list/', name: 'list', params: {}, viaRouter: true }]);
  });
});
