/**
 * memoryLane (src/platform/http/lane.ts) on its own: what reaches the chain when the lane does not answer.
 * The chain must see the request as if the lane were not there: no caller set by the lane's cache
 * lookup (the chain's own authenticate() decides, and may decide otherwise), nothing counted.
 */
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { memoryLane } from '../../src/platform/http/lane.js';
import request from '../support/request.js';

function appWith(opts: { answers: boolean; quota: boolean }) {
  const seen: { user?: unknown; apiKey?: unknown }[] = [];
  let counted = 0;
  const app = new Koa();
  app.use(
    memoryLane({
      routes: [{ path: '/feed', metered: true, lane: (ctx) => (opts.answers ? () => void (ctx.body = { from: 'lane' }) : undefined) }],
      // The cache vouches for the caller: the lane sets it as authenticate() would.
      authenticate: (ctx) => {
        ctx.state.user = { id: 7, address: '0x', roles: [], via: 'bearer' };
        ctx.state.apiKey = { id: 'k', tier: 'free' };
        return true;
      },
      countQuota: () => {
        if (opts.quota) counted++;
        return opts.quota;
      },
      begin: () => undefined,
      finish: () => undefined,
    }),
  );
  app.use((ctx) => {
    seen.push({ user: ctx.state.user, apiKey: ctx.state.apiKey });
    ctx.body = { from: 'chain' };
  });
  return { http: request(app), seen, counted: () => counted };
}

describe('memoryLane', () => {
  it('answers when the route can and the quota is counted', async () => {
    const { http, seen, counted } = appWith({ answers: true, quota: true });
    expect((await http.get('/feed')).body).toEqual({ from: 'lane' });
    expect(seen).toEqual([]);
    expect(counted()).toBe(1);
    await http.close();
  });

  it.each([
    ['the route declines', { answers: false, quota: true }],
    ['the quota needs Redis', { answers: true, quota: false }],
  ])('%s: the chain gets the request with no caller set by the lane', async (_, opts) => {
    const { http, seen, counted } = appWith(opts);
    expect((await http.get('/feed')).body).toEqual({ from: 'chain' });
    expect(seen).toEqual([{ user: undefined, apiKey: undefined }]);
    expect(counted()).toBe(0);
    await http.close();
  });

  it('leaves other paths, methods and requests with Origin to the chain', async () => {
    const { http, seen } = appWith({ answers: true, quota: true });
    expect((await http.get('/other')).body).toEqual({ from: 'chain' });
    expect((await http.post('/feed', {})).body).toEqual({ from: 'chain' });
    expect((await http.get('/feed', { origin: 'https://example.com' })).body).toEqual({ from: 'chain' });
    expect(seen).toHaveLength(3);
    await http.close();
  });
});
