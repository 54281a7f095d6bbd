/**
 * Editors' merge and split of stories: the endpoints, their refusals, the assigner respecting the
 * lock, the event log and the moderation log. Headlines, URLs and sources are real items of the
 * labelled set (test/data/stories/headlines.jsonl), their times moved to the last hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { slugify } from '../../src/platform/url/slug.js';
import { assignStoryItem } from '../../src/stories/index.js';
import { addSource, ingestItems } from '../../src/wire/queries.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let editor: Session;
let user: Session;
let articleId: number;
const wire: Record<string, number> = {};
const T = Date.now() - 3 * 3600_000;

/** Real items: [key, source, url, title, minutes after T]. */
const ITEMS: [string, string, string, string, number][] = [
  [
    'hash1',
    'CoinGape',
    'https://coingape.com/bitcoin-hash-rate-soar-to-new-highs-as-btc-bulls-step-up-8000-incoming/',
    'Bitcoin Hash Rate Soar to New Highs as BTC Bulls Step Up, $8,000 Incoming?',
    0,
  ],
  [
    'kor1',
    'Crypto Potato',
    'https://cryptopotato.com/south-korean-commission-korean-firms-should-be-allowed-to-launch-bitcoin-derivatives/',
    'South Korean Commission: Korean Firms Should Be Allowed To Launch Bitcoin Derivatives',
    14,
  ],
  [
    'xrp1',
    'TheBlock',
    'https://www.theblockcrypto.com/linked/52102/binance-futures-launches-xrp-perpetual-contract-with-up-to-75x-leverage',
    'Binance Futures launches XRP perpetual contract, with up to 75x leverage',
    64,
  ],
  [
    'kor2',
    'CoinTelegraph',
    'https://cointelegraph.com/news/south-korean-presidential-committee-recommends-allowing-bitcoin-derivatives',
    'South Korean Presidential Committee Recommends Allowing Bitcoin Derivatives',
    66,
  ],
  ['hash2', 'CoinDesk', 'https://www.coindesk.com/bitcoin-mining-power-hits-fresh-all-time-high', 'Bitcoin Mining Power Hits Fresh All-Time High', 72],
  [
    'xrp2',
    'CoinGape',
    'https://coingape.com/binance-futures-launches-xrp-usdt-contracts-with-75x-max-leverage/',
    'Binance Futures Launches XRP/USDT Contracts with 75x Max Leverage',
    77,
  ],
];

const sources = new Map<string, Awaited<ReturnType<typeof addSource>>>();

async function ingest(key: string, name: string, url: string, title: string, minutes: number) {
  const source = sources.get(name) ?? (await addSource(deps.db, { name, url: `https://${name.toLowerCase().replace(/\W/g, '')}.example/feed` }));
  sources.set(name, source);
  const { created } = await ingestItems(
    deps.db,
    { id: source.id, name, url: source.url },
    [{ normalizedUrl: normalizeUrl(url)!, url, title, summary: null, guid: null, publishedAt: new Date(T + minutes * 60_000) }],
    new Date(),
  );
  wire[key] = created[0]!.id;
}

const storyOf = async (key: string) => (await deps.db.selectFrom('wire_items').select('story_id').where('id', '=', wire[key]!).executeTakeFirstOrThrow()).story_id!;
const story = (id: number) => deps.db.selectFrom('stories').selectAll().where('id', '=', id).executeTakeFirst();
const merge = (id: number, body: unknown, who: Session = editor) => http.post(`/api/v1/stories/${id}/merge`, body, who.bearer);
const split = (id: number, body: unknown, who: Session = editor) => http.post(`/api/v1/stories/${id}/split`, body, who.bearer);

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'storyed' });
  user = await sessionFor(deps.db, deps.config.JWT_SECRET);
  for (const [key, name, url, title, minutes] of ITEMS) {
    await ingest(key, name, url, title, minutes);
    expect((await assignStoryItem(deps.db, 'wire', wire[key]!)).outcome).toBe('assigned');
  }
  // A published article on the CoinDesk URL: a copy of that wire item, in its story.
  const url = ITEMS[4]![2];
  const a = await deps.db
    .insertInto('articles')
    .values({
      slug: slugify(ITEMS[4]![3]),
      headline: ITEMS[4]![3],
      url,
      normalized_url: normalizeUrl(url)!,
      source: 'coindesk.com',
      status: 'approved',
      published_at: new Date(T + 80 * 60_000),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  articleId = a.id;
  expect(await assignStoryItem(deps.db, 'article', articleId)).toMatchObject({ outcome: 'assigned', created: false });
});

afterAll(async () => {
  await http.close();
  await deps.close();
});

describe('POST /api/v1/stories/{id}/merge', () => {
  it('refuses anonymous callers, non-editors, the same story, unknown stories and bad bodies', async () => {
    const a = await storyOf('hash1');
    const b = await storyOf('hash2');
    expect(a).not.toBe(b); // the assigner misses this rewording: the editor's case
    expect((await http.post(`/api/v1/stories/${a}/merge`, { story_id: b })).status).toBe(401);
    expect((await merge(a, { story_id: b }, user)).body.error.code).toBe('editor_required');
    const self = await merge(a, { story_id: a });
    expect([self.status, self.body.error.code]).toEqual([409, 'story_merge_self']);
    const unknown = await merge(a, { story_id: 999_999 });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.details]).toEqual([404, 'story_not_found', { story_id: 999_999 }]);
    expect((await merge(999_998, { story_id: a })).status).toBe(404);
    expect((await merge(a, {})).body.error.code).toBe('validation_failed');
    expect((await merge(a, { story_id: b, extra: 1 })).status).toBe(400);
    expect(await story(b)).toBeDefined();
  });

  it('merges: members, counts, times, headline, story_id, lock, events and the moderation log', async () => {
    const a = await storyOf('hash1');
    const b = await storyOf('hash2');
    const r = await merge(a, { story_id: b, note: 'same hash-rate record' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const moved = [
      { kind: 'wire', id: wire.hash2 },
      { kind: 'article', id: articleId },
    ];
    expect(r.body.edit).toMatchObject({ action: 'merge', story_id: a, other_story_id: b, items: moved, forced: false });
    // Three members, two independent sources: the article is a copy of the CoinDesk wire item.
    expect(r.body.story).toMatchObject({ id: a, member_count: 3, source_count: 2, locked: true, headline: ITEMS[0]![3] });
    expect(r.body.story.members.map((m: { id: number }) => m.id)).toEqual([wire.hash1, wire.hash2, articleId]);
    expect(r.body.story.members[2]).toMatchObject({ kind: 'article', copy: true });
    expect(r.body.story.last_seen_at).toBe(new Date(T + 80 * 60_000).toISOString());
    expect((await http.get(`/api/v1/news/${articleId}/`)).body.story_id).toBe(a);
    expect(r.body.new_story).toBeNull();
    expect(await storyOf('hash2')).toBe(a);
    expect(await story(b)).toBeUndefined();
    expect((await http.get(`/api/v1/stories/${b}/`)).status).toBe(404);
    const events = await deps.db.selectFrom('event_log').select('payload').where('type', '=', 'story.assigned').execute();
    expect(events.map((e) => e.payload)).toContainEqual(
      expect.objectContaining({ item_id: wire.hash2, story_id: a, previous_story_id: b, reason: 'merge', story_edit_id: r.body.edit.id }),
    );
    const log = await http.get('/api/v1/modlog/?action=story_merge');
    expect(log.body.count).toBe(1);
    expect(log.body.results[0]).toMatchObject({
      id: r.body.edit.id,
      action: 'story_merge',
      article: null,
      editor: { name: 'storyed' },
      story: { id: a, other_story_id: b, items: moved },
    });
    expect(log.body.results[0].note).toBeUndefined();
    expect((await http.get('/api/v1/modlog/?action=story_merge', editor.bearer)).body.results[0].note).toBe('same hash-rate record');
    expect((await http.get('/api/v1/modlog/?action=approve')).body.results.every((e: { story: unknown }) => e.story === null)).toBe(true);
  });

  it('the assigner never undoes it: a headline change of a member of a locked story keeps it there', async () => {
    const a = await storyOf('hash1');
    await deps.db.updateTable('wire_items').set({ title: ITEMS[2]![3] }).where('id', '=', wire.hash2!).execute();
    expect(await assignStoryItem(deps.db, 'wire', wire.hash2!)).toEqual({ outcome: 'unchanged', storyId: a });
    await deps.db.updateTable('wire_items').set({ title: ITEMS[4]![3] }).where('id', '=', wire.hash2!).execute();
  });
  it('dissolving a locked story needs force; merging into one does not', async () => {
    const a = await storyOf('hash1'); // locked by the merge above
    await ingest(
      'scara',
      'Business Insider',
      'https://www.businessinsider.com/scaramucci-says-bear-markets-suck-sbf-deal-mediocre-performance-2022-9',
      "Anthony Scaramucci says bear markets 'suck,' and Skybridge only took Sam-Bankman Fried's deal because of its 'mediocre' performance",
      90,
    );
    await ingest(
      'dcx',
      'CoinTelegraph',
      'https://cointelegraph.com/news/coinbase-talks-to-buy-hacked-crypto-exchange-coindcx-report',
      'Coinbase reportedly in advanced talks to buy CoinDCX',
      95,
    );
    for (const key of ['scara', 'dcx']) expect(await assignStoryItem(deps.db, 'wire', wire[key]!)).toMatchObject({ outcome: 'assigned', created: true });
    const c = await storyOf('scara');
    const d = await storyOf('dcx');
    const refused = await merge(c, { story_id: a });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([409, 'story_locked', { story_id: c, locked_story_id: a }]);
    expect(await storyOf('hash1')).toBe(a);
    const into = await merge(a, { story_id: c });
    expect([into.status, into.body.edit.forced, await storyOf('scara')]).toEqual([200, false, a]);
    const forced = await merge(d, { story_id: a, force: true });
    expect([forced.status, forced.body.edit.forced]).toEqual([200, true]);
    expect(forced.body.story).toMatchObject({ id: d, member_count: 5, locked: true });
    expect(await storyOf('hash1')).toBe(d);
  });
});

describe('POST /api/v1/stories/{id}/split', () => {
  it('refuses items that are not members, a split of every member, and bad bodies', async () => {
    const k = await storyOf('kor1');
    expect(await storyOf('kor2')).toBe(k);
    const stranger = await split(k, { items: [{ kind: 'wire', id: wire.xrp1 }] });
    expect([stranger.status, stranger.body.error.code, stranger.body.error.details.items]).toEqual([409, 'story_members_not_in_story', [{ kind: 'wire', id: wire.xrp1 }]]);
    const all = await split(k, {
      items: [
        { kind: 'wire', id: wire.kor1 },
        { kind: 'wire', id: wire.kor2 },
      ],
    });
    expect([all.status, all.body.error.code]).toEqual([409, 'story_split_all']);
    expect((await split(k, { items: [] })).body.error.code).toBe('validation_failed');
    expect((await split(k, { items: [{ kind: 'page', id: 1 }] })).body.error.code).toBe('validation_failed');
    expect((await split(999_999, { items: [{ kind: 'wire', id: wire.kor1 }] })).body.error.code).toBe('story_not_found');
    expect((await split(k, { items: [{ kind: 'wire', id: wire.kor2 }] }, user)).status).toBe(403);
    expect(await storyOf('kor2')).toBe(k);
  });

  it('splits into a new locked story, recomputes both, separates them, and a merge back needs force', async () => {
    const k = await storyOf('kor1');
    const r = await split(k, {
      items: [
        { kind: 'wire', id: wire.kor2 },
        { kind: 'wire', id: wire.kor2 },
      ],
      note: 'two announcements',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const n = r.body.edit.other_story_id;
    expect(r.body.story).toMatchObject({ id: k, member_count: 1, source_count: 1, locked: true, headline: ITEMS[1]![3] });
    expect(r.body.new_story).toMatchObject({
      id: n,
      member_count: 1,
      source_count: 1,
      locked: true,
      headline: ITEMS[3]![3],
      first_seen_at: new Date(T + 66 * 60_000).toISOString(),
    });
    expect(await storyOf('kor2')).toBe(n);
    // The split-out item is not re-assigned back by a headline re-assignment.
    await deps.db.updateTable('wire_items').set({ title: ITEMS[1]![3] }).where('id', '=', wire.kor2!).execute();
    expect(await assignStoryItem(deps.db, 'wire', wire.kor2!)).toEqual({ outcome: 'unchanged', storyId: n });
    const back = await merge(k, { story_id: n });
    expect([back.status, back.body.error.code, back.body.error.details]).toEqual([409, 'story_merge_separated', { story_id: k, other_story_id: n }]);
    expect((await http.get('/api/v1/modlog/?action=story_split')).body.results[0]).toMatchObject({
      action: 'story_split',
      story: { id: k, other_story_id: n, items: [{ kind: 'wire', id: wire.kor2 }] },
    });
    const forced = await merge(k, { story_id: n, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.edit.forced).toBe(true);
    expect(forced.body.story).toMatchObject({ member_count: 2, source_count: 2 });
  });

  it('a new item may still join a locked story', async () => {
    const x = await storyOf('xrp1');
    expect(await storyOf('xrp2')).toBe(x);
    const r = await split(x, { items: [{ kind: 'wire', id: wire.xrp2 }] });
    expect(r.status).toBe(200);
    await ingest(
      'xrp3',
      'CryptoGlobe',
      'https://www.cryptoglobe.com/latest/2020/01/binance-futures-now-offers-xrp-usdt-perpetual-contract/',
      'Binance Futures Now Offers XRP/USDT Perpetual Contract',
      100,
    );
    const joined = await assignStoryItem(deps.db, 'wire', wire.xrp3!);
    expect(joined).toMatchObject({ outcome: 'assigned', created: false });
    expect([x, r.body.edit.other_story_id]).toContain(await storyOf('xrp3'));
  });
});
