/**
 * The editors' console: server-rendered pages under /editor/ on the web process.
 *  - GET /editor/                     the queue (editors), the sign-in page (signed out), or "Editors only" (403)
 *  - GET /editor/items/:id            one item: facts, provenance (waits EDITOR_PROVENANCE_WAIT_MS at most), decide, asset tags, edit
 *  - GET /editor/items/:id/row        the queue row of one item (HTML fragment; live updates insert it)
 *  - GET /editor/items/:id/provenance its provenance block (HTML fragment; 202 while still checking)
 *  - GET /editor/modlog/              the moderation log (rendered by the script from GET /api/v1/modlog/)
 *  - GET /editor/credibility/         credibility flags to confirm or clear (staff; credibility-console.ts)
 *  - GET /editor/assets/<file>        editor.js and editor.css (versioned by content hash)
 * Actions are not served here: the page's script calls the REST endpoints (same rules, same CSRF
 * check: the browser sends the Origin of the page) and shows their error messages.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { articleTagsForEditors } from '../assets/index.js';
import { queueIds, queueItem } from './queue-queries.js';
import { ASSET_TYPES, createConsoleContext, editorStreamUrl, type ConsoleContext } from './console-context.js';
import { credibilityPageRoute } from './credibility-console.js';
import { groupByStory, itemPage, modlogPage, notFoundPage, provenanceHtml, queuePageOf, queueRow } from './render.js';

const EDITOR_PATH = /^\/editor(\/|$)/;

/** The console's Content-Security-Policy: own scripts and styles only; the stream's origin for EventSource. */
export function editorCsp(config: AppDeps['config']): (ctx: Context) => string | undefined {
  const stream = new URL(editorStreamUrl(config)).origin;
  const policy = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${stream}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
  return (ctx) => (EDITOR_PATH.test(ctx.path) ? policy : undefined);
}

const html = { description: 'HTML page', schema: z.string(), contentType: 'text/html' };
/** A page's refusal: an HTML page for the browser, or the error body when the credential itself was refused before the page. */
const htmlOrError = (description: string) => ({ description, schema: errorSchema, alternatives: { 'text/html': z.string() } });
const idParam = z.strictObject({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().max(2_147_483_647)),
});

/** A full page of the console: HTML, or the sign-in / "Editors only" / not found page. */
const page = (path: string, operationId: string, summary: string, handler: RouteDef['handler'], params?: z.ZodType) =>
  defineRoute({
    method: 'get',
    path,
    mount: 'root',
    operationId,
    summary,
    tags: ['editor console'],
    params,
    responses: { 200: html, 401: htmlOrError('Sign-in page'), 403: htmlOrError('Editors only page'), 404: htmlOrError('Not found page') },
    handler,
  } as RouteDef);

function queuePageRoute(c: ConsoleContext): RouteDef {
  return page('/editor/', 'editorQueuePage', "The editors' review queue (HTML)", async (ctx) => {
    const who = await c.editor(ctx);
    if (who === null) return;
    const { ids, total } = await queueIds(c.deps.db, c.deps.config.EDITOR_QUEUE_LIMIT);
    const cached = await c.prov.peek(ids.map((r) => r.id));
    const rows = await c.rows.render(c.deps.db, ids, cached);
    c.render(ctx, 200, 'Review queue', queuePageOf(groupByStory(ids, rows), total, rows.filter(Boolean).length), who);
  });
}

function modlogPageRoute(c: ConsoleContext): RouteDef {
  return page('/editor/modlog/', 'editorModlogPage', 'The moderation log (HTML)', async (ctx) => {
    const who = await c.editor(ctx);
    if (who === null) return;
    c.render(ctx, 200, 'Moderation log', modlogPage(), who);
  });
}

function itemPageRoute(c: ConsoleContext): RouteDef {
  return page(
    '/editor/items/:id',
    'editorItemPage',
    'One item of the queue: facts, provenance, decide and edit (HTML)',
    async (ctx, { params }: any) => {
      const who = await c.editor(ctx);
      if (who === null) return;
      const item = await queueItem(c.deps.db, params.id);
      if (!item) return c.render(ctx, 404, 'Not found', notFoundPage(params.id), who);
      const [p, tags] = await Promise.all([c.prov.get(item, c.waitMs), articleTagsForEditors(c.deps.db, item.id)]);
      c.render(ctx, 200, item.headline, itemPage(item, p, Date.now(), tags), who);
    },
    idParam,
  );
}

function queueRowRoute(c: ConsoleContext): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/editor/items/:id/row',
    mount: 'root',
    operationId: 'editorQueueRow',
    summary: 'The queue row of one item (HTML fragment)',
    tags: ['editor console'],
    params: idParam,
    responses: { 200: html, 403: { description: 'editor_required' }, 404: { description: 'article_not_found' } },
    async handler(ctx, { params }) {
      await c.requireEditorFragment(ctx);
      const item = await queueItem(c.deps.db, params.id);
      if (!item) throw new DomainError('article_not_found', `article ${params.id} not found`);
      const cached = await c.prov.peek([item.id]);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = queueRow(item, cached.get(item.id));
    },
  });
}

function provenanceFragmentRoute(c: ConsoleContext): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/editor/items/:id/provenance',
    mount: 'root',
    operationId: 'editorProvenanceFragment',
    summary: 'The provenance block of one item (HTML fragment); 202 while the check is still running',
    description: 'Looked up at most once per item per hour (cached in Redis); waits EDITOR_PROVENANCE_WAIT_MS at most.',
    tags: ['editor console'],
    params: idParam,
    responses: { 200: html, 202: html, 403: { description: 'editor_required' }, 404: { description: 'article_not_found' } },
    async handler(ctx, { params }) {
      await c.requireEditorFragment(ctx);
      const item = await queueItem(c.deps.db, params.id);
      if (!item) throw new DomainError('article_not_found', `article ${params.id} not found`);
      const p = await c.prov.get(item, c.waitMs);
      ctx.status = p.state === 'done' ? 200 : 202;
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = provenanceHtml(item.id, p);
    },
  });
}

function assetRoute(c: ConsoleContext): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/editor/assets/:file',
    mount: 'root',
    operationId: 'editorAsset',
    summary: "The console's script and style sheet",
    tags: ['editor console'],
    params: z.strictObject({ file: z.enum(Object.keys(ASSET_TYPES) as [string, ...string[]]) }),
    responses: { 200: { description: 'The file', schema: z.string(), contentType: 'application/javascript', alternatives: { 'text/css': z.string() } } },
    handler(ctx, { params }) {
      const a = c.assets.get(params.file)!;
      ctx.type = a.type;
      ctx.set('Cache-Control', ctx.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.body = a.body;
    },
  });
}

export function editorRoutes(deps: AppDeps): RouteDef[] {
  const c = createConsoleContext(deps);
  return [queuePageRoute(c), modlogPageRoute(c), itemPageRoute(c), queueRowRoute(c), provenanceFragmentRoute(c), assetRoute(c), credibilityPageRoute(c)];
}
