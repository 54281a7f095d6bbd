/**
 * Use cases of the assets feature: tagging an article or a wire item (the asset-tag job), editors'
 * corrections, and staff changes to the registry. Each runs in one transaction; article changes
 * record the internal article.edited event (reason `assets`), which retires the feed cache.
 */
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { articleNotFound, insertArticleEdit, pageTitleUpdate, type PageTitleWrite } from '../articles/index.js';
import type { AssetRegistry, TaggingRegistry } from './registry-cache.js';
import { tokenFieldsFrom } from './rules/registry.js';
import { tagText, type AssetTag } from './rules/tagger.js';
import {
  addAliases,
  articleForTagging,
  getAsset,
  getFill,
  insertAmbiguousWord,
  insertAsset,
  insertDeployments,
  lockArticleTags,
  replaceWireTags,
  replaceWorkerTags,
  setAmbiguous,
  tokenFieldsOf,
  unknownAssetIds,
  upsertTags,
  wireItemForTagging,
  writeFill,
  writeTaggedPageTitle,
  type TagRow,
} from './queries.js';

type Trx = Db;
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const visibleIds = (rows: readonly TagRow[]) =>
  rows
    .filter((r) => !r.removed)
    .sort((a, b) => b.salience - a.salience || a.asset_id.localeCompare(b.asset_id))
    .map((r) => r.asset_id);

type Fill = { token_symbols: string[]; token_addresses: string[] } | null | undefined;
type TaggedArticle = { id: number; headline: string; token_symbols: string[]; token_addresses: string[] };

/**
 * Fill token_symbols / token_addresses from the tags only when nobody set them: both empty and never
 * filled (`fill` is the worker's last fill), or still exactly what the worker filled last time. The
 * symbols and addresses come from the held registry when it knows every id, else from PostgreSQL.
 */
async function fillTokenFields(trx: Trx, article: TaggedArticle, assetIds: string[], fill: Fill, held?: TaggingRegistry): Promise<boolean> {
  const untouched = fill
    ? sameList(fill.token_symbols, article.token_symbols) && sameList(fill.token_addresses, article.token_addresses)
    : article.token_symbols.length === 0 && article.token_addresses.length === 0;
  if (!untouched) return false;
  const next = (held && tokenFieldsFrom(held.assets, assetIds)) ?? (await tokenFieldsOf(trx, assetIds));
  if (sameList(next.symbols, article.token_symbols) && sameList(next.addresses, article.token_addresses)) return false;
  await writeFill(trx, article.id, next.symbols, next.addresses);
  return true;
}

type WorkerTagRow = { asset_id: string; salience: number; is_primary: boolean };
const workerRows = (tags: readonly AssetTag[]): WorkerTagRow[] => tags.map((t) => ({ asset_id: t.id, salience: t.salience, is_primary: t.primary }));

/** The tags an article shows after a re-tag: every editor's row as it is (a removal hides the asset), then the worker's others. */
function afterRetag(before: readonly TagRow[], tags: readonly AssetTag[]) {
  const byEditor = before.filter((r) => r.source === 'editor');
  const editorIds = new Set(byEditor.map((r) => r.asset_id));
  const mine = tags.filter((t) => !editorIds.has(t.id));
  const assets = visibleIds([...byEditor, ...mine.map((t) => ({ asset_id: t.id, salience: t.salience, is_primary: t.primary, source: 'worker' as const, removed: false }))]);
  return { byEditor, mine, assets };
}

/**
 * Re-tag an article from its headline in the caller's transaction: one statement replaces the
 * worker's tags (every editor's tag and removal kept) and reads the last fill; one more writes the
 * token fields when the fill rule lets them change. No event: the caller records it.
 */
async function retagArticle(trx: Trx, held: TaggingRegistry, article: TaggedArticle): Promise<{ assets: string[]; changed: boolean }> {
  const tags = tagText(held.tagger, { title: article.headline });
  const { before, fill } = await replaceWorkerTags(trx, article.id, workerRows(tags));
  const { mine, assets } = afterRetag(before, tags);
  const was = before.filter((r) => r.source === 'worker').map((r) => `${r.asset_id}:${r.salience.toFixed(2)}:${r.is_primary}`);
  const now = mine.map((t) => `${t.id}:${t.salience.toFixed(2)}:${t.primary}`);
  const filled = await fillTokenFields(trx, article, assets, fill, held);
  return { assets, changed: filled || !sameList(was.sort(), now.sort()) };
}

interface TagResult {
  status: 'tagged' | 'not_found';
  assets: string[];
  changed: boolean;
}

/** Re-tag an article from its headline, keeping every editor's tag and removal (the asset-tag job). */
export async function tagArticle(db: Db, registry: AssetRegistry, articleId: number): Promise<TagResult> {
  const held = await registry.forTagging(db);
  return db.transaction().execute(async (trx) => {
    const article = await articleForTagging(trx, articleId);
    if (!article) return { status: 'not_found' as const, assets: [], changed: false };
    await lockArticleTags(trx, articleId);
    const { assets, changed } = await retagArticle(trx, held, article);
    if (changed) await recordEvents(trx, [internalEvent('article.edited', articleId, { reason: 'assets', assets })]);
    return { status: 'tagged' as const, assets, changed };
  });
}

/**
 * The page-title job's write of a new headline with its assets (jobs/page-title.ts): `title` is
 * tagged before the transaction opens, and the headline, the worker's tags and the token-field fill
 * are written by one statement (writeTaggedPageTitle); the visible tags join that transaction's
 * article.edited event (reason `page_title`, `assets`), so the relay enqueues no asset-tag run for
 * it. An article an editor has tagged gets the fill rule applied after that statement, as a re-tag
 * does.
 */
export async function headlineTagging(db: Db, registry: AssetRegistry, title: string): Promise<PageTitleWrite> {
  const held = await registry.forTagging(db);
  const tagged = tagText(held.tagger, { title });
  return async (trx, id, page) => {
    const tags = page.title === title ? tagged : tagText(held.tagger, { title: page.title });
    const ids = afterRetag([], tags).assets;
    const next = tokenFieldsFrom(held.assets, ids) ?? (await tokenFieldsOf(trx, ids));
    const written = await writeTaggedPageTitle(trx, pageTitleUpdate(trx, id, page), id, workerRows(tags), next);
    if (!written) return undefined;
    const { before, fill, ...row } = written;
    const { byEditor, assets } = afterRetag(before, tags);
    if (byEditor.length > 0) await fillTokenFields(trx, row, assets, fill, held);
    return { row, event: { assets } };
  };
}

/** Tag a wire item from its title and summary (replacing its tags). */
export async function tagWireItem(db: Db, registry: AssetRegistry, wireItemId: number): Promise<TagResult> {
  const tagger = await registry.tagger(db);
  return db.transaction().execute(async (trx) => {
    const item = await wireItemForTagging(trx, wireItemId);
    if (!item) return { status: 'not_found' as const, assets: [], changed: false };
    const tags: AssetTag[] = tagText(tagger, { title: item.title, body: item.summary });
    await replaceWireTags(
      trx,
      wireItemId,
      tags.map((t) => ({ asset_id: t.id, salience: t.salience, is_primary: t.primary })),
    );
    return { status: 'tagged' as const, assets: tags.map((t) => t.id), changed: true };
  });
}

const assetNotFound = (id: string) => new DomainError('asset_not_found', `asset ${id} not found`);

/**
 * An editor adds (or removes) an asset tag: the row becomes the editor's, kept over every re-tag;
 * a removal stays as a removed row. Recorded in article_edits (the moderation log) and announced.
 */
export async function setEditorTag(db: Db, input: { articleId: number; assetId: string; editorId: number; remove: boolean }): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const article = await articleForTagging(trx, input.articleId);
    if (!article) throw articleNotFound(input.articleId);
    if (!(await getAsset(trx, input.assetId))) throw assetNotFound(input.assetId);
    const rows = await lockArticleTags(trx, input.articleId);
    const from = visibleIds(rows);
    const old = rows.find((r) => r.asset_id === input.assetId);
    const salience = old?.salience ?? 0.5;
    await upsertTags(trx, input.articleId, [
      { asset_id: input.assetId, salience, is_primary: !input.remove && (old?.is_primary ?? false), source: 'editor', removed: input.remove, updated_by: input.editorId },
    ]);
    const to = visibleIds([...rows.filter((r) => r.asset_id !== input.assetId), { asset_id: input.assetId, salience, is_primary: false, source: 'editor', removed: input.remove }]);
    if (sameList(from, to)) return to;
    await fillTokenFields(trx, article, to, await getFill(trx, article.id));
    await insertArticleEdit(trx, { articleId: input.articleId, editorId: input.editorId, changes: { assets: { from, to } }, action: 'edit', statusAt: article.status });
    await recordEvents(trx, [internalEvent('article.edited', input.articleId, { reason: 'assets', fields: ['assets'], assets: to })]);
    return to;
  });
}

interface NewAsset {
  id: string;
  symbol: string;
  name: string;
  aliases: string[];
  ambiguous: boolean;
  deployments: string[];
}

/** Staff add an asset (409 asset_exists when the id is taken). */
export async function addAsset(db: Db, registry: AssetRegistry, a: NewAsset): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await insertAsset(trx, { id: a.id, symbol: a.symbol, name: a.name, aliases: a.aliases, ambiguous: a.ambiguous }))) {
      throw new DomainError('asset_exists', `asset ${a.id} already exists`);
    }
    await insertDeployments(trx, a.id, a.deployments);
  });
  registry.invalidate();
}

/** Staff add aliases to an asset, or mark its ticker ambiguous (404 asset_not_found). */
export async function updateAsset(db: Db, registry: AssetRegistry, id: string, change: { aliases?: string[]; ambiguous?: boolean }): Promise<void> {
  const found = change.aliases?.length
    ? await addAliases(db, id, change.aliases)
    : change.ambiguous !== undefined
      ? await setAmbiguous(db, id, change.ambiguous)
      : Boolean(await getAsset(db, id));
  if (!found) throw assetNotFound(id);
  if (change.aliases?.length && change.ambiguous !== undefined) await setAmbiguous(db, id, change.ambiguous);
  registry.invalidate();
}

/** Staff add a word that needs context to count as a ticker or name. */
export async function addAmbiguousWord(db: Db, registry: AssetRegistry, word: string): Promise<void> {
  await insertAmbiguousWord(db, word.toLowerCase());
  registry.invalidate();
}

/** 400 unknown_asset naming the first id of a filter the registry does not know. */
export async function requireKnownAssets(db: Db, ids: readonly string[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const unknown = await unknownAssetIds(db, ids);
  if (unknown.length > 0) throw new DomainError('unknown_asset', `unknown asset: ${unknown[0]}`, { parameter: 'asset', value: unknown[0] });
}
