import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startTestWorkers } from '../support/workers.js';
import { hostOf, normalizeUrl } from '../../src/platform/url/normalize.js';
import { slugify } from '../../src/platform/url/slug.js';
import { applyPageTitle } from '../../src/articles/index.js';
import { assignStoryItem } from '../../src/stories/index.js';
import { itemFeatures } from '../../src/stories/rules/features.js';
import { addSource, ingestItems } from '../../src/wire/queries.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { startRelay, type RunningRelay } from '../support/relay.js';

let deps: TestDeps;
let relay: RunningRelay;
let http: ReturnType<typeof request>;
let workers: Worker[] = [];
const wire: Record<string, number> = {};
const T = Date.now() - 2 * 3600_000;

async function ingest(name: string, entries: [key: string, url: string, title: string, minutes: number][]) {
  const source = await addSource(deps.db, { name, url: `https://${name.toLowerCase().replace(/\s/g, '')}.example/feed` });
  const { created } = await ingestItems(
    deps.db,
    { id: source.id, name, url: source.url },
    entries.map(([, url, title, minutes]) => ({ normalizedUrl: normalizeUrl(url)!, url, title, summary: null, guid: null, publishedAt: new Date(T + minutes * 60_000) })),
    new Date(),
  );
  entries.forEach(([key], i) => (wire[key] = created[i]!.id));
}

async function article(headline: string, url: string, opts: { sponsored?: boolean } = {}) {
  const n = normalizeUrl(url)!;
  const r = await deps.db
    .insertInto('articles')
    .values({
      slug: slugify(headline),
      headline,
      url,
      normalized_url: n,
      source: hostOf(n),
      status: 'approved',
      created_at: new Date(T + 90 * 60_000),
      published_at: new Date(T + 90 * 60_000),
      sponsored: opts.sponsored ? JSON.stringify({ tier: 'basic', ad_status: 'live', is_paid: true }) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

async function get(path: string, status: number) {
  const r = await http.get(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(status);
  return r;
}

async function storyOfWire(id: number): Promise<number | null> {
  const r = await deps.db.selectFrom('wire_items').select('story_id').where('id', '=', id).executeTakeFirstOrThrow();
  return r.story_id;
}

beforeAll(async () => {
  // Wire promotion by corroboration off: its queue items would join these stories as members
  // (test/integration/wire-corroboration.test.ts covers it).
  deps = await createTestDeps({ WIRE_PROMOTE_MIN_SOURCES: '0' });
  relay = await startRelay(deps);
  http = request(createApp(deps));
  workers = startTestWorkers(deps, ['story-assign'], { lockDurationMs: 10_000, concurrencyCap: 2 });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  await ingest('Desk One', [
    ['cdx1', 'https://one.example/news/coindcx-announces-white-hat-recovery-bounty-after-44m-hack', 'CoinDCX announces white hat recovery bounty after $44M hack', 0],
    ['other', 'https://one.example/news/paypal-launches-crypto-checkout-tool', 'PayPal launches crypto checkout tool, adds support for over 100 tokens', 5],
  ]);
  await ingest('Desk Two', [
    ['cdx2', 'https://two.example/markets/coindcx-offers-bounty-to-recover-44m-stolen-in-hack', 'CoinDCX offers white hat bounty to recover $44M stolen in hack', 20],
    ['cdxCopy', 'https://mirror.example/syndicated/coindcx-announces-white-hat-recovery-bounty-after-44m-hack', 'CoinDCX bounty (syndicated)', 30],
  ]);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await relay.close();
  await http.close();
  await deps.close();
});

describe('story-assign worker', () => {
  it('assigns every ingested wire item through the relay and the job, grouping one event', async () => {
    await expect.poll(async () => Promise.all(Object.values(wire).map(storyOfWire)), { timeout: 15_000, interval: 50 }).not.toContain(null);
    const [a, b, copy, other] = await Promise.all([wire.cdx1!, wire.cdx2!, wire.cdxCopy!, wire.other!].map(storyOfWire));
    expect(b).toBe(a);
    expect(copy).toBe(a);
    expect(other).not.toBe(a);
    const story = await deps.db.selectFrom('stories').selectAll().where('id', '=', a!).executeTakeFirstOrThrow();
    // Three members; the syndicated copy on a third host is not an independent source.
    expect(story).toMatchObject({ member_count: 3, source_count: 2, headline: 'CoinDCX announces white hat recovery bounty after $44M hack' });
    const logged = await deps.db.selectFrom('event_log').select(['type', 'payload']).where('type', '=', 'story.assigned').execute();
    expect(logged.length).toBeGreaterThanOrEqual(4);
  });

  it('assigns exactly once: a retry finds the item assigned and changes nothing', async () => {
    const before = await deps.db
      .selectFrom('story_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const events = await deps.db
      .selectFrom('event_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'story.assigned')
      .executeTakeFirstOrThrow();
    const again = await assignStoryItem(deps.db, 'wire', wire.cdx2!);
    expect(again).toEqual({ outcome: 'unchanged', storyId: await storyOfWire(wire.cdx1!) });
    const after = await deps.db
      .selectFrom('story_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const eventsAfter = await deps.db
      .selectFrom('event_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'story.assigned')
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    expect(eventsAfter.n).toBe(events.n);
  });

  it('puts an article on a wire item URL in that story as a copy, and skips sponsored posts', async () => {
    const id = await article('CoinDCX recovery bounty', 'https://one.example/news/coindcx-announces-white-hat-recovery-bounty-after-44m-hack');
    const r = await deps.queue.enqueueAndWait('story-assign', { kind: 'article', id }, 15_000);
    expect(r.state).toBe('completed');
    const storyId = await storyOfWire(wire.cdx1!);
    expect(r.state === 'completed' && r.result).toMatchObject({ outcome: 'assigned', storyId, created: false });
    const row = await deps.db.selectFrom('stories').select(['member_count', 'source_count']).where('id', '=', storyId!).executeTakeFirstOrThrow();
    expect(row).toEqual({ member_count: 4, source_count: 2 });
    const ad = await article('Buy the best token today', 'https://ads.example/best-token', { sponsored: true });
    expect(await assignStoryItem(deps.db, 'article', ad)).toEqual({ outcome: 'skipped', reason: 'sponsored' });
    expect(await assignStoryItem(deps.db, 'article', 999_999)).toEqual({ outcome: 'skipped', reason: 'not_found' });
  });
});

describe('stories API', () => {
  it('lists stories most recently active first, filters by sources, and shows a story with its members', async () => {
    const list = await get('/api/v1/stories/', 200);
    expect(list.body.count).toBe(2);
    const storyId = await storyOfWire(wire.cdx1!);
    const multi = await get('/api/v1/stories/?min_sources=2', 200);
    expect(multi.body.results.map((s: { id: number }) => s.id)).toEqual([storyId]);
    const one = await get(`/api/v1/stories/${storyId}/`, 200);
    expect(one.body).toMatchObject({ id: storyId, member_count: 4, source_count: 2 });
    const times = one.body.members.map((m: { first_seen_at: string }) => m.first_seen_at);
    expect([...times].sort()).toEqual(times);
    expect(one.body.members[0]).toMatchObject({ kind: 'wire', id: wire.cdx1, first: true, copy: false });
    expect(one.body.members.filter((m: { first: boolean }) => m.first)).toHaveLength(1);
    expect(one.body.members.some((m: { kind: string }) => m.kind === 'article')).toBe(true);
  });

  it('shows story_id on the article record', async () => {
    const a = await deps.db.selectFrom('articles').select(['id', 'story_id']).where('url', 'like', '%coindcx%').executeTakeFirstOrThrow();
    const rec = await get(`/api/v1/news/${a.id}/`, 200);
    expect(rec.body.story_id).toBe(a.story_id);
    expect(a.story_id).not.toBeNull();
  });

  it('answers 404 story_not_found and 400 for bad parameters', async () => {
    expect((await get('/api/v1/stories/424242/', 404)).body.error.code).toBe('story_not_found');
    expect((await get('/api/v1/stories/abc/', 400)).body.error.code).toBe('validation_failed');
    expect((await get('/api/v1/stories/?min_sources=0', 400)).body.error.code).toBe('validation_failed');
    expect((await get('/api/v1/stories/?per_page=x', 400)).body.error.code).toBe('validation_failed');
    expect((await get('/api/v1/stories/?bogus=1', 400)).body.error.code).toBe('validation_failed');
    expect((await get('/api/v1/stories/?since=2025-01-02&until=2025-01-01', 400)).body.error.code).toBe('validation_failed');
  });
});

describe('an article assigned with what its page says', () => {
  it('uses the page title, its description as page text, and the publication time the page claims when plausible', async () => {
    const id = await article('one.example/news/pending', 'https://three.example/2024/coindcx-hack-bounty');
    await deps.db.updateTable('articles').set({ headline_source: 'provisional' }).where('id', '=', id).execute();
    const claimed = new Date(T + 25 * 60_000);
    const page = {
      title: 'CoinDCX puts up bounty for hackers who took $44M',
      description: 'The exchange offers a white hat reward to recover stolen funds.',
      publishedAt: claimed,
    };
    expect(await applyPageTitle(deps.db, id, page)).toMatchObject({ headline: page.title });
    // The page title's article.edited event calls for the assignment through the relay and the job.
    await expect
      .poll(async () => (await deps.db.selectFrom('articles').select('story_id').where('id', '=', id).executeTakeFirstOrThrow()).story_id, { timeout: 15_000, interval: 50 })
      .toBe(await storyOfWire(wire.cdx1!));
    const member = await deps.db.selectFrom('story_members').select(['features', 'seen_at']).where('item_kind', '=', 'article').where('item_id', '=', id).executeTakeFirstOrThrow();
    const features = (typeof member.features === 'string' ? JSON.parse(member.features) : member.features) as { at: number; textWords: string[] };
    expect(features.at).toBe(claimed.getTime());
    expect(member.seen_at.getTime()).toBe(claimed.getTime());
    const expected = itemFeatures({ title: page.title, url: null, source: null, at: 0, text: page.description }).textWords;
    expect(expected.length).toBeGreaterThan(3);
    expect(features.textWords).toEqual(expected);
  });

  it('does not believe a claimed time far before the service saw the page: the observation time is used', async () => {
    const id = await article('three.example/2024/old', 'https://three.example/2024/paypal-checkout-tokens');
    await deps.db.updateTable('articles').set({ headline_source: 'provisional' }).where('id', '=', id).execute();
    const page = { title: 'PayPal crypto checkout adds support for 100 tokens', description: null, publishedAt: new Date(T - 30 * 86_400_000) };
    await applyPageTitle(deps.db, id, page);
    await expect
      .poll(
        async () =>
          (await deps.db.selectFrom('story_members').select('seen_at').where('item_kind', '=', 'article').where('item_id', '=', id).executeTakeFirst())?.seen_at.getTime(),
        { timeout: 15_000, interval: 50 },
      )
      .toBe(T + 90 * 60_000);
  });
});
