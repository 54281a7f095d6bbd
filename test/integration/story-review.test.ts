/**
 * Reviewing the queue by story: the console groups a story's waiting articles in one row, and
 * POST /stories/{id}/approve approves one and kills the others as its duplicates in one
 * transaction. Headlines, URLs and sources are real items of the labelled set
 * (test/data/stories/headlines.jsonl), their times moved to the last hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { hostOf, normalizeUrl } from '../../src/platform/url/normalize.js';
import { slugify } from '../../src/platform/url/slug.js';
import { assignStoryItem } from '../../src/stories/index.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let editor: Session;
let user: Session;
const T = Date.now() - 2 * 3600_000;
const ids: Record<string, number> = {};

const ITEMS: [string, string, string, number][] = [
  [
    'xrp1',
    'https://www.theblockcrypto.com/linked/52102/binance-futures-launches-xrp-perpetual-contract-with-up-to-75x-leverage',
    'Binance Futures launches XRP perpetual contract, with up to 75x leverage',
    0,
  ],
  ['xrp2', 'https://coingape.com/binance-futures-launches-xrp-usdt-contracts-with-75x-max-leverage/', 'Binance Futures Launches XRP/USDT Contracts with 75x Max Leverage', 13],
  ['usd1', 'https://bitcoinist.com/binance-stablecoin-receives-nydfs-approval/', 'Binance Stablecoin Receives NYDFS Approval', 20],
  ['xrp3', 'https://www.cryptoglobe.com/latest/2020/01/binance-futures-now-offers-xrp-usdt-perpetual-contract/', 'Binance Futures Now Offers XRP/USDT Perpetual Contract', 35],
  [
    'kor1',
    'https://cryptopotato.com/south-korean-commission-korean-firms-should-be-allowed-to-launch-bitcoin-derivatives/',
    'South Korean Commission: Korean Firms Should Be Allowed To Launch Bitcoin Derivatives',
    40,
  ],
  [
    'kor2',
    'https://cointelegraph.com/news/south-korean-presidential-committee-recommends-allowing-bitcoin-derivatives',
    'South Korean Presidential Committee Recommends Allowing Bitcoin Derivatives',
    50,
  ],
];

const status = async (key: string) => await deps.db.selectFrom('articles').select(['status', 'duplicate_of']).where('id', '=', ids[key]!).executeTakeFirstOrThrow();
const storyOf = async (key: string) => (await deps.db.selectFrom('articles').select('story_id').where('id', '=', ids[key]!).executeTakeFirstOrThrow()).story_id!;
const approve = (story: number, body: unknown, who: Session = editor) => http.post(`/api/v1/stories/${story}/approve`, body, who.bearer);

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'queueed' });
  user = await sessionFor(deps.db, deps.config.JWT_SECRET);
  for (const [key, url, headline, minutes] of ITEMS) {
    const n = normalizeUrl(url)!;
    const at = new Date(T + minutes * 60_000);
    const r = await deps.db
      .insertInto('articles')
      .values({ slug: slugify(headline), headline, url, normalized_url: n, source: hostOf(n), status: 'submitted', created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[key] = r.id;
    expect((await assignStoryItem(deps.db, 'article', r.id)).outcome).toBe('assigned');
  }
});

afterAll(async () => {
  await http.close();
  await deps.close();
});

describe('the queue by story', () => {
  it("shows one story's waiting articles together: one row with the count and the sources, expandable", async () => {
    const x = await storyOf('xrp1');
    expect([await storyOf('xrp2'), await storyOf('xrp3')]).toEqual([x, x]);
    expect(await storyOf('usd1')).not.toBe(x);
    const page = await http.get('/editor/', { cookie: `access_token=${editor.token}` });
    expect(page.status).toBe(200);
    const group = page.text.match(new RegExp(`<li class="story-group" data-story="${x}" data-count="3">[\\s\\S]*?</li>\\n</ol>`))?.[0];
    expect(group, page.text).toBeDefined();
    expect(group).toContain('3</span> waiting from 3 sources: www.cryptoglobe.com, coingape.com, www.theblockcrypto.com');
    for (const k of ['xrp1', 'xrp2', 'xrp3']) expect(group).toContain(`id="item-${ids[k]}"`);
    expect(group).not.toContain(`id="item-${ids.usd1}"`);
    // The story stands where its newest member stood; the single item stays a plain row.
    expect(page.text.indexOf(`data-story="${x}"`)).toBeLessThan(page.text.indexOf(`id="item-${ids.usd1}"`));
    expect(page.text).toContain(`<option value="${ids.xrp1}" selected>`);
  });

  it('refuses non-editors, unknown stories, an article of another story, and bad bodies', async () => {
    const x = await storyOf('xrp1');
    expect((await http.post(`/api/v1/stories/${x}/approve`, { article_id: ids.xrp1 })).status).toBe(401);
    expect((await approve(x, { article_id: ids.xrp1 }, user)).body.error.code).toBe('editor_required');
    expect((await approve(999_999, { article_id: ids.xrp1 })).body.error.code).toBe('story_not_found');
    const other = await approve(x, { article_id: ids.usd1 });
    expect([other.status, other.body.error.code]).toEqual([409, 'story_members_not_in_story']);
    expect((await approve(x, { article_id: 999_999 })).body.error.code).toBe('article_not_found');
    expect((await approve(x, {})).body.error.code).toBe('validation_failed');
    expect((await status('xrp2')).status).toBe('submitted');
  });

  it('is all or nothing: a refused approval kills nothing', async () => {
    const k = await storyOf('kor1');
    expect(await storyOf('kor2')).toBe(k);
    await deps.db.updateTable('articles').set({ status: 'retracted' }).where('id', '=', ids.kor1!).execute();
    const r = await approve(k, { article_id: ids.kor1 });
    expect([r.status, r.body.error.code]).toEqual([409, 'illegal_transition']);
    expect((await status('kor2')).status).toBe('submitted');
  });

  it('approves one and kills the others as its duplicates in one motion, through the editorial transitions', async () => {
    const x = await storyOf('xrp1');
    const r = await approve(x, { article_id: ids.xrp1, note: 'one story' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ article: { id: ids.xrp1, status: 'approved' }, newly_approved: true, killed: [ids.xrp2, ids.xrp3], skipped: [] });
    expect(await status('xrp2')).toEqual({ status: 'killed', duplicate_of: ids.xrp1 });
    expect(await status('xrp3')).toEqual({ status: 'killed', duplicate_of: ids.xrp1 });
    expect((await status('usd1')).status).toBe('submitted');
    const log = await http.get('/api/v1/modlog/?action=kill', editor.bearer);
    expect(log.body.results.map((e: { article: { id: number } }) => e.article.id).sort()).toEqual([ids.xrp2, ids.xrp3].sort());
    expect(log.body.results[0]).toMatchObject({ reason: 'duplicate', duplicate_of: ids.xrp1, note: 'one story' });
    const events = await deps.db.selectFrom('event_log').select(['type', 'article_id']).where('type', 'in', ['news.approved', 'news.killed']).execute();
    expect(events).toHaveLength(3);
    // Again: the article is published already, nothing waits any more.
    const again = await approve(x, { article_id: ids.xrp1 });
    expect(again.body).toMatchObject({ newly_approved: false, killed: [] });
  });
});
