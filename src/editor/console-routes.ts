/**
 * The editors' console: server-rendered pages under /editor/ on the web process.
 *  - GET /editor/                     the queue (editors), the sign-in page (signed out), or "Editors only" (403)
 *  - GET /editor/items/:id            one item: facts, provenance (waits EDITOR_PROVENANCE_WAIT_MS at most), decide, edit
 *  - GET /editor/items/:id/row        the queue row of one item (HTML fragment; live updates insert it)
 *  - GET /editor/items/:id/provenance its provenance block (HTML fragment; 202 while still checking)
 *  - GET /editor/modlog/              the moderation log (rendered by the script from GET /api/v1/modlog/)
 *  - GET /editor/assets/<file>        editor.js and editor.css (versioned by content hash)
 * Actions are not served here: the page's script calls the REST endpoints (same rules, same CSRF
 * check: the browser sends the Origin of the page) and shows their error messages.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import { getAddress } from 'viem';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { queueIds, queueItem, queueItemsByIds } from './queue-queries.js';
import { getUserById } from '../identity/index.js';
import { EditorProvenance, type CachedProvenance } from './provenance-cache.js';
import { editorsOnlyPage, itemPage, modlogPage, notFoundPage, provenanceHtml, queuePageOf, queueRow, shell, signInPage } from './render.js';

const ASSET_DIR = new URL('./assets/', import.meta.url);
const ASSET_TYPES: Record<string, string> = { 'editor.js': 'application/javascript; charset=utf-8', 'editor.css': 'text/css; charset=utf-8' };

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

function loadAssets(): Map<string, Asset> {
  const m = new Map<string, Asset>();
  for (const [name, type] of Object.entries(ASSET_TYPES)) {
    const body = readFileSync(new URL(name, ASSET_DIR));
    m.set(name, { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) });
  }
  return m;
}

/** The SSE endpoint the page listens to: EDITOR_STREAM_URL, else PUBLIC_BASE_URL's host on WS_PORT. */
function editorStreamUrl(config: AppDeps['config']): string {
  if (config.EDITOR_STREAM_URL) return config.EDITOR_STREAM_URL;
  const u = new URL(config.PUBLIC_BASE_URL);
  u.port = String(config.WS_PORT);
  u.pathname = '/sse/news/';
  u.search = '';
  return u.toString();
}

const ROW_CACHE_MS = 60_000;
const ROW_CACHE_MAX = 20_000;
const provStamp = (p: CachedProvenance | undefined) => (p?.state === 'done' ? p.result.meta.checked_at : (p?.state ?? 'missing'));

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

export function editorRoutes(deps: AppDeps): RouteDef[] {
  const assets = loadAssets();
  const prov = new EditorProvenance(deps);
  const assetUrls = { js: `/editor/assets/editor.js?v=${assets.get('editor.js')!.hash}`, css: `/editor/assets/editor.css?v=${assets.get('editor.css')!.hash}` };
  const streamUrl = editorStreamUrl(deps.config);
  const waitMs = deps.config.EDITOR_PROVENANCE_WAIT_MS;
  /**
   * Rendered queue rows by article, reused while the article's updated_at and its provenance state
   * are unchanged, for at most ROW_CACHE_MS (so a submitter's new username shows within that).
   */
  const rows = new Map<number, { stamp: string; html: string; until: number }>();

  const render = (ctx: Context, status: number, title: string, body: string, who?: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = shell({ title, assets: assetUrls, streamUrl, who }, body);
  };

  /**
   * The signed-in editor's display name, or null after rendering the sign-in page (signed out,
   * expired) or the "Editors only" page (403). Roles are read from the database.
   */
  async function editor(ctx: Context): Promise<string | null> {
    const u = ctx.state.user;
    if (!u || u.via === 'api_key') {
      const expired = ctx.state.authProblem?.code === 'token_expired';
      render(ctx, 401, 'Sign in', signInPage(expired ? 'Your session has expired; sign in again.' : undefined));
      return null;
    }
    const row = await getUserById(deps.db, u.id);
    if (!row) {
      render(ctx, 401, 'Sign in', signInPage('That account no longer exists.'));
      return null;
    }
    const who = row.username ?? `${getAddress(row.wallet_address).slice(0, 6)}…${getAddress(row.wallet_address).slice(-4)}`;
    if (!(row.roles as string[]).includes('editor')) {
      render(ctx, 403, 'Editors only', editorsOnlyPage(who), who);
      return null;
    }
    return who;
  }

  /**
   * Fragments answer 401/403 as JSON errors (the script reacts to the status). Like the pages, they
   * take a signed-in session only: an API key is answered 401 as a signed-out caller.
   */
  async function requireEditorFragment(ctx: Context): Promise<void> {
    const u = ctx.state.user;
    if (u?.via === 'api_key') throw new DomainError('auth_required', "the editors' console takes a signed-in session, not an API key");
    if (!u) throw new DomainError(ctx.state.authProblem?.code ?? 'auth_required', 'sign in again');
    const row = await getUserById(deps.db, u.id);
    if (!row) throw new DomainError('account_not_found', 'the account of this token no longer exists; sign in again');
    if (!(row.roles as string[]).includes('editor')) throw new DomainError('editor_required', 'this action needs the editor role');
  }

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

  return [
    page('/editor/', 'editorQueuePage', "The editors' review queue (HTML)", async (ctx) => {
      const who = await editor(ctx);
      if (who === null) return;
      const { ids, total } = await queueIds(deps.db, deps.config.EDITOR_QUEUE_LIMIT);
      const cached = await prov.peek(ids.map((r) => r.id));
      const now = Date.now();
      const html: string[] = new Array(ids.length);
      const misses: number[] = [];
      const stamps = ids.map((r) => `${r.updated_at.getTime()}|${provStamp(cached.get(r.id))}`);
      ids.forEach((r, i) => {
        const hit = rows.get(r.id);
        if (hit && hit.stamp === stamps[i] && hit.until > now) html[i] = hit.html;
        else misses.push(i);
      });
      if (misses.length) {
        const full = new Map(
          (
            await queueItemsByIds(
              deps.db,
              misses.map((i) => ids[i].id),
            )
          ).map((it) => [it.id, it]),
        );
        for (const i of misses) {
          const it = full.get(ids[i].id);
          if (!it) continue; // decided between the two reads
          html[i] = queueRow(it, cached.get(it.id));
          if (rows.size >= ROW_CACHE_MAX) rows.delete(rows.keys().next().value!);
          rows.set(it.id, { stamp: stamps[i], html: html[i], until: now + ROW_CACHE_MS });
        }
      }
      render(
        ctx,
        200,
        'Review queue',
        queuePageOf(
          html.filter((h) => h !== undefined),
          total,
        ),
        who,
      );
    }),

    page('/editor/modlog/', 'editorModlogPage', 'The moderation log (HTML)', async (ctx) => {
      const who = await editor(ctx);
      if (who === null) return;
      render(ctx, 200, 'Moderation log', modlogPage(), who);
    }),

    page(
      '/editor/items/:id',
      'editorItemPage',
      'One item of the queue: facts, provenance, decide and edit (HTML)',
      async (ctx, { params }: any) => {
        const who = await editor(ctx);
        if (who === null) return;
        const item = await queueItem(deps.db, params.id);
        if (!item) return render(ctx, 404, 'Not found', notFoundPage(params.id), who);
        const p = await prov.get(item, waitMs);
        render(ctx, 200, item.headline, itemPage(item, p, Date.now()), who);
      },
      idParam,
    ),

    defineRoute({
      method: 'get',
      path: '/editor/items/:id/row',
      mount: 'root',
      operationId: 'editorQueueRow',
      summary: 'The queue row of one item (HTML fragment)',
      tags: ['editor console'],
      params: idParam,
      responses: { 200: html, 403: { description: 'editor_required' }, 404: { description: 'article_not_found' } },
      async handler(ctx, { params }) {
        await requireEditorFragment(ctx);
        const item = await queueItem(deps.db, params.id);
        if (!item) throw new DomainError('article_not_found', `article ${params.id} not found`);
        const cached = await prov.peek([item.id]);
        ctx.type = 'html';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = queueRow(item, cached.get(item.id));
      },
    }),

    defineRoute({
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
        await requireEditorFragment(ctx);
        const item = await queueItem(deps.db, params.id);
        if (!item) throw new DomainError('article_not_found', `article ${params.id} not found`);
        const p = await prov.get(item, waitMs);
        ctx.status = p.state === 'done' ? 200 : 202;
        ctx.type = 'html';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = provenanceHtml(item.id, p);
      },
    }),

    defineRoute({
      method: 'get',
      path: '/editor/assets/:file',
      mount: 'root',
      operationId: 'editorAsset',
      summary: "The console's script and style sheet",
      tags: ['editor console'],
      params: z.strictObject({ file: z.enum(Object.keys(ASSET_TYPES) as [string, ...string[]]) }),
      responses: { 200: { description: 'The file', schema: z.string(), contentType: 'application/javascript', alternatives: { 'text/css': z.string() } } },
      handler(ctx, { params }) {
        const a = assets.get(params.file)!;
        ctx.type = a.type;
        ctx.set('Cache-Control', ctx.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
        ctx.body = a.body;
      },
    }),
  ];
}
