/**
 * staticRouteFastPath: a request for a parameterless route's exact path skips the router's pattern
 * scan, and must come out exactly as the router alone would have answered it.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { staticRouteFastPath } from '../../src/http/route.js';
import request from '../support/request.js';

type Seen = { route?: string; name?: string; params?: unknown };

function appWith(fast: boolean) {
  const router = new Router({ prefix: '/api' });
  const seen: Seen[] = [];
  const record = (ctx: Koa.Context) => {
    const c = ctx as Koa.Context & { _matchedRoute?: string; _matchedRouteName?: string };
    seen.push({ route: c._matchedRoute, name: c._matchedRouteName, params: c.params });
  };
  // Registered before the static '/items/new/' that its pattern also matches: the router runs this one.
  router.get('itemById', '/items/:id/', (ctx) => {
    record(ctx);
    ctx.body = { by: 'id', id: ctx.params.id };
  });
  router.get('itemsNew', '/items/new/', (ctx) => {
    record(ctx);
    ctx.body = { by: 'new' };
  });
  router.get(
    'list',
    '/list/',
    async (ctx, next) => {
      ctx.set('X-Before', '1');
      await next();
    },
    (ctx) => {
      record(ctx);
      ctx.body = { list: true };
    },
  );
  router.post('create', '/list/', (ctx) => {
    record(ctx);
    ctx.status = 201;
    ctx.body = { created: true };
  });
  const app = new Koa();
  if (fast) app.use(staticRouteFastPath([router]));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, seen, router };
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
    expect(fast.seen).toEqual(plain.seen);
  });

  it("leaves a later router's static route to the routers when an earlier router matches its path", async () => {
    const build = (fast: boolean) => {
      const first = new Router();
      first.get('/files/:name', (ctx) => {
        ctx.body = { by: 'first', name: ctx.params.name };
      });
      const second = new Router();
      second.get('/files/readme', (ctx) => {
        ctx.body = { by: 'second' };
      });
      second.get('/other', (ctx) => {
        ctx.body = { by: 'other' };
      });
      const app = new Koa();
      if (fast) app.use(staticRouteFastPath([first, second]));
      app.use(first.routes());
      app.use(second.routes());
      return { app, second };
    };
    expect((await request(build(false).app).get('/files/readme')).body).toEqual({ by: 'first', name: 'readme' });
    expect((await request(build(true).app).get('/files/readme')).body).toEqual({ by: 'first', name: 'readme' });
    // '/other' is matched by no earlier router: the fast path answers it even with its own router emptied.
    const fast = build(true);
    fast.second.stack.length = 0;
    expect((await request(fast.app).get('/other')).body).toEqual({ by: 'other' });
  });

  it('takes the static route without the router when it is the single match', async () => {
    const { app, seen, router } = appWith(true);
    // Empty the router after start-up: it would now answer 404, so a 200 comes from the fast path.
    router.stack.length = 0;
    const r = await request(app).get('/api/list/');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-before')).toBe('1');
    expect(seen).toEqual([{ route: '/api/list/', name: 'list', params: {} }]);
  });
});
