/**
 * What every page and fragment of the editors' console shares: the versioned assets, the stream
 * URL, the provenance cache, the page renderer and the two editor checks (page and fragment).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import { getAddress } from 'viem';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { getUserById } from '../identity/index.js';
import { EditorProvenance } from './provenance-cache.js';
import { QueueRowCache } from './queue-row-cache.js';
import { editorsOnlyPage, shell, signInPage } from './render.js';

const ASSET_DIR = new URL('./assets/', import.meta.url);
export const ASSET_TYPES: Record<string, string> = { 'editor.js': 'application/javascript; charset=utf-8', 'editor.css': 'text/css; charset=utf-8' };

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
export function editorStreamUrl(config: AppDeps['config']): string {
  if (config.EDITOR_STREAM_URL) return config.EDITOR_STREAM_URL;
  const u = new URL(config.PUBLIC_BASE_URL);
  u.port = String(config.WS_PORT);
  u.pathname = '/sse/news/';
  u.search = '';
  return u.toString();
}

export interface ConsoleContext {
  deps: AppDeps;
  assets: Map<string, Asset>;
  prov: EditorProvenance;
  rows: QueueRowCache;
  waitMs: number;
  /** Renders a full page (no-store). */
  render(ctx: Context, status: number, title: string, body: string, who?: string): void;
  /**
   * The signed-in editor's display name, or null after rendering the sign-in page (signed out,
   * expired) or the "Editors only" page (403). Roles are read from the database.
   */
  editor(ctx: Context): Promise<string | null>;
  /**
   * Fragments answer 401/403 as JSON errors (the script reacts to the status). Like the pages, they
   * take a signed-in session only: an API key is answered 401 as a signed-out caller.
   */
  requireEditorFragment(ctx: Context): Promise<void>;
}

export function createConsoleContext(deps: AppDeps): ConsoleContext {
  const assets = loadAssets();
  const assetUrls = { js: `/editor/assets/editor.js?v=${assets.get('editor.js')!.hash}`, css: `/editor/assets/editor.css?v=${assets.get('editor.css')!.hash}` };
  const streamUrl = editorStreamUrl(deps.config);

  const render: ConsoleContext['render'] = (ctx, status, title, body, who) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = shell({ title, assets: assetUrls, streamUrl, who }, body);
  };

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

  async function requireEditorFragment(ctx: Context): Promise<void> {
    const u = ctx.state.user;
    if (u?.via === 'api_key') throw new DomainError('auth_required', "the editors' console takes a signed-in session, not an API key");
    if (!u) throw new DomainError(ctx.state.authProblem?.code ?? 'auth_required', 'sign in again');
    const row = await getUserById(deps.db, u.id);
    if (!row) throw new DomainError('account_not_found', 'the account of this token no longer exists; sign in again');
    if (!(row.roles as string[]).includes('editor')) throw new DomainError('editor_required', 'this action needs the editor role');
  }

  return { deps, assets, prov: new EditorProvenance(deps), rows: new QueueRowCache(), waitMs: deps.config.EDITOR_PROVENANCE_WAIT_MS, render, editor, requireEditorFragment };
}
