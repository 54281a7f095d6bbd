/**
 * Pieces shared by the articles, yaps and editorial routes: error codes, who may see an article
 * and DRF-style page links.
 */
import type { Context } from 'koa';
import type { AppDeps } from '../platform/deps.js';
import { PUBLIC_STATUSES } from './rules/state.js';
import { DomainError } from '../platform/errors/index.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { articleStatus } from './queries.js';

export function articleNotFound(id: number): DomainError {
  return new DomainError('article_not_found', `article ${id} not found`);
}

/** Who is asking, as authentication left it: a Koa context, or a caller outside HTTP (an MCP tool call). */
export type CallerCtx = { state: Pick<Context['state'], 'user' | 'apiKey' | 'authProblem'> };

/** The request a page of results answers: its path and query string (for the next/previous links). */
export type PageRequest = Pick<Context, 'path' | 'querystring'>;

export function isSignedIn(ctx: CallerCtx): boolean {
  return Boolean(ctx.state.user || ctx.state.apiKey);
}

/** Published (approved) and retracted articles are public; the others need a signed-in caller, else 404. */
export function canSee(ctx: CallerCtx, status: string): boolean {
  return PUBLIC_STATUSES.includes(status) || isSignedIn(ctx);
}

/** The article's status when the caller may see it; 404 article_not_found otherwise. */
export async function visibleStatus(deps: AppDeps, ctx: CallerCtx, id: number): Promise<string> {
  const status = await articleStatus(deps.db, id);
  if (!status || !canSee(ctx, status)) throw articleNotFound(id);
  return status;
}

export function requireSignedIn(ctx: CallerCtx, what: string): void {
  if (isSignedIn(ctx)) return;
  const p = ctx.state.authProblem;
  throw new DomainError(p?.code ?? 'auth_required', p?.message ?? `${what} needs credentials: send the access_token cookie or an Authorization: Bearer header`);
}

/**
 * DRF-style next/previous: absolute URLs on PUBLIC_BASE_URL with the request's own query
 * parameters, `page` replaced (and dropped for page 1, as DRF does).
 */
export function pageLinks(ctx: PageRequest, publicBaseUrl: string, page: number, perPage: number, count: number) {
  const base = `${publicBaseUrl.replace(/\/+$/, '')}${API_PREFIX}${ctx.path.slice(API_PREFIX.length)}`;
  const link = (p: number) => {
    const qs = new URLSearchParams(ctx.querystring);
    qs.delete('page');
    if (p > 1) qs.set('page', String(p));
    const s = qs.toString();
    return s ? `${base}?${s}` : base;
  };
  const lastPage = Math.max(1, Math.ceil(count / perPage));
  return {
    next: page < lastPage ? link(page + 1) : null,
    previous: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
  };
}
