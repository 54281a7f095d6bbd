/**
 * Unknown names: REST answers `unknown_field` and the stream `unknown_parameter` (each code kept for
 * its clients), and both carry the same "did you mean" suggestion, in the message and as
 * `suggestion`, computed by one rule (src/platform/http/did-you-mean.ts).
 */
import Router from '@koa/router';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorMiddleware } from '../../src/platform/errors/index.js';
import { didYouMean } from '../../src/platform/http/did-you-mean.js';
import { defineRoute, mountRoutes, type RouteDef } from '../../src/platform/http/route.js';
import { parseStreamFilter } from '../../src/stream/rules/filter.js';
import request from '../support/request.js';

const router = new Router();
mountRoutes(router, [
  defineRoute({
    method: 'get',
    path: '/items/',
    operationId: 'items',
    summary: 'items',
    tags: ['t'],
    query: z.strictObject({ sort_type: z.string().optional(), token_symbol: z.string().optional(), page: z.string().optional() }),
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      ctx.body = { ok: true };
    },
  }) as RouteDef,
]);
const app = new Koa();
app.use(errorMiddleware(pino({ level: 'silent' })));
app.use(router.routes());
const http = request(app);
afterAll(() => http.close());

describe('did you mean', () => {
  it('suggests the known name a typo, a plural, another case or a short form stands for; nothing for an unrelated name', () => {
    const known = ['types', 'token_address', 'token_symbol', 'tag', 'sort_type', 'page'];
    expect(didYouMean('tags', known)).toBe('tag');
    expect(didYouMean('type', known)).toBe('types');
    expect(didYouMean('token_addresses', known)).toBe('token_address');
    expect(didYouMean('tokenSymbol', known)).toBe('token_symbol');
    expect(didYouMean('sort', known)).toBe('sort_type');
    expect(didYouMean('pgae', known)).toBe('page');
    expect(didYouMean('colour', known)).toBeNull();
    expect(didYouMean('a', known)).toBeNull();
  });

  it('REST: unknown_field with the suggestion', async () => {
    const r = await http.get('/items/?sort=new&token_symbols=ETH&colour=red');
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual([
      { path: 'query.sort', code: 'unknown_field', message: 'unknown parameter "sort"; did you mean "sort_type"?', suggestion: 'sort_type' },
      { path: 'query.token_symbols', code: 'unknown_field', message: 'unknown parameter "token_symbols"; did you mean "token_symbol"?', suggestion: 'token_symbol' },
      { path: 'query.colour', code: 'unknown_field', message: 'unknown parameter "colour"' },
    ]);
  });

  it('stream: unknown_parameter with the same suggestion', () => {
    const r = parseStreamFilter(new URLSearchParams('tags=defi&token_symbols=ETH'));
    expect(r.ok ? [] : r.issues).toEqual([
      { path: 'query.tags', code: 'unknown_parameter', message: 'unknown parameter "tags"; did you mean "tag"?', suggestion: 'tag' },
      { path: 'query.token_symbols', code: 'unknown_parameter', message: 'unknown parameter "token_symbols"; did you mean "token_symbol"?', suggestion: 'token_symbol' },
    ]);
  });
});
