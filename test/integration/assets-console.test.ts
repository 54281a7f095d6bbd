/**
 * Asset tags in the editors' console: the item page lists an article's tags (with who set them and
 * an editor's removals) and the add form; a change made through the API the page's script calls is
 * shown on the page, kept over a re-tag by the worker, and listed in the moderation log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { sharedRegistry, tagArticle } from '../../src/assets/index.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { insertArticle } from '../support/intel.js';
import request from '../support/request.js';

const ORIGIN = 'http://127.0.0.1:8000';
let deps: TestDeps;
let http: ReturnType<typeof request>;
let editor: Session;
let id: number;
const asEditor = () => ({ cookie: `access_token=${editor.token}`, origin: ORIGIN });

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'tagger' });
  id = await insertArticle(deps.db, { headline: 'Bitcoin and Ether slide as Coinbase shares fall' });
  await tagArticle(deps.db, sharedRegistry, id);
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

const itemPage = async () => {
  const r = await http.get(`/editor/items/${id}`, asEditor());
  expect(r.status).toBe(200);
  return r.text as string;
};
const listed = (html: string) => [...html.matchAll(/<li data-asset="([a-z0-9-]+)">/g)].map((m) => m[1]);

describe('asset tags in the editors’ console', () => {
  it('the item page lists the worker’s tags with remove buttons, and the add form', async () => {
    const html = await itemPage();
    expect(listed(html).sort()).toEqual(['bitcoin', 'ethereum']);
    expect(html).toMatch(/Bitcoin <span class="muted">\(BTC, <code>bitcoin<\/code>, salience \d\.\d\d, tagged by the worker\)<\/span>/);
    expect(html).toContain('<button type="button" class="asset-remove" data-asset="bitcoin"');
    expect(html).toContain('<form id="asset-add" class="edit" data-id="' + id + '">');
  });

  it('a removal and an addition (cookie, our Origin, as the script sends them) show on the page, survive a re-tag, and are in the moderation log (an approved article)', async () => {
    const removed = await http.delete(`/api/v1/news/${id}/assets/ethereum/`, undefined, asEditor());
    expect([removed.status, removed.body.assets]).toEqual([200, ['bitcoin']]);
    const added = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'solana' }, asEditor());
    expect(added.status).toBe(200);
    await tagArticle(deps.db, sharedRegistry, id);
    const html = await itemPage();
    expect(listed(html).sort()).toEqual(['bitcoin', 'solana']);
    expect(html).toMatch(/Solana <span class="muted">\(SOL, <code>solana<\/code>, salience 0\.50, added by an editor\)/);
    expect(html).toMatch(/id="asset-removed">Removed by an editor[^<]*Ethereum \(<code>ethereum<\/code>\)/);
    const log = await http.get('/api/v1/modlog/?action=edit', asEditor());
    expect(log.status).toBe(200);
    const mine = (log.body.results as { article: { id: number } | null; changes: { assets?: { from: string[]; to: string[] } } }[]).filter((e) => e.article?.id === id);
    expect(mine.map((e) => e.changes.assets)).toEqual([
      { from: ['bitcoin'], to: expect.arrayContaining(['bitcoin', 'solana']) },
      { from: expect.arrayContaining(['bitcoin', 'ethereum']), to: ['bitcoin'] },
    ]);
  });

  it('a bad asset id from the add form is the API’s 400 naming the field; an unknown one 404', async () => {
    const bad = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'Not An Id' }, asEditor());
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
    const unknown = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'no-such-coin' }, asEditor());
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'asset_not_found']);
  });
});
