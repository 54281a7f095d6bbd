/**
 * Wire promotion by corroboration (docs/stories.md): a story newly covered by
 * WIRE_PROMOTE_MIN_SOURCES (default 2) independent sources gets exactly one queue item, from its
 * earliest wire member; a story of one source gets none from this rule; retries and concurrent
 * assignments do not add a second one; the score-based promotion job respects the story's claim.
 * Headlines: test/data/stories/headlines.jsonl (stories binance-futures-xrp-perpetual,
 * xrp-jan-2020-rally, korea-committee-bitcoin-derivatives).
 */
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { assignStoryItem } from '../../src/stories/index.js';
import { promoteWireItemIn } from '../../src/wire/index.js';
import { addSource, ingestItems } from '../../src/wire/queries.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startRelay, type RunningRelay } from '../support/relay.js';
import { startTestWorkers } from '../support/workers.js';

let deps: TestDeps;
let relay: RunningRelay;
let workers: Worker[] = [];

async function ingest(name: string, entries: [url: string, title: string][]): Promise<number[]> {
  const source = await addSource(deps.db, { name, url: `https://${name.toLowerCase().replace(/\s/g, '')}.example/feed` });
  const { created } = await ingestItems(
    deps.db,
    { id: source.id, name, url: source.url },
    entries.map(([url, title]) => ({ normalizedUrl: normalizeUrl(url)!, url, title, summary: null, guid: null, publishedAt: new Date(Date.now() - 600_000) })),
    new Date(),
  );
  return created.map((c) => c.id);
}

async function storyOf(wireId: number): Promise<number> {
  const read = async () => (await deps.db.selectFrom('wire_items').select('story_id').where('id', '=', wireId).executeTakeFirstOrThrow()).story_id;
  await expect.poll(read, { timeout: 10_000, interval: 25 }).not.toBeNull();
  return (await read())!;
}

/** The automatic queue items (wire-promoted articles) created from the story's wire members. */
async function queueItems(storyId: number) {
  return deps.db
    .selectFrom('wire_items as w')
    .innerJoin('articles as a', 'a.id', 'w.promoted_article_id')
    .select(['a.id', 'a.url', 'a.status', 'a.origin', 'w.id as wire_item_id'])
    .where('w.story_id', '=', storyId)
    .execute();
}

async function promotedEvents(articleId: number): Promise<number> {
  const r = await deps.db
    .selectFrom('event_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', 'news.tsunami_promoted')
    .where('article_id', '=', articleId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  workers = startTestWorkers(deps, ['story-assign'], { lockDurationMs: 10_000, concurrencyCap: 2 });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await relay.close();
  await deps.close();
});

describe('wire promotion by corroboration', () => {
  let story = 0;
  let first = 0;
  let second = 0;

  it('two independent sources of one story produce exactly one queue item, from the earliest member', async () => {
    [first] = await ingest('The Block', [
      ['https://www.theblockcrypto.com/linked/52102/binance-futures-launches-xrp-perpetual-contract', 'Binance Futures launches XRP perpetual contract, with up to 75x leverage'],
    ]);
    story = await storyOf(first!);
    expect(await queueItems(story)).toEqual([]);
    [second] = await ingest('AMB Crypto', [
      [
        'https://eng.ambcrypto.com/binance-futures-launches-xrp-usdt-perpetual-contracts-with-upto-75x-leverage/',
        'Binance Futures launches XRP/USDT perpetual contracts with upto 75x leverage',
      ],
    ]);
    expect(await storyOf(second!)).toBe(story);
    await expect.poll(async () => (await queueItems(story)).length, { timeout: 10_000, interval: 25 }).toBe(1);
    const [item] = await queueItems(story);
    expect(item).toMatchObject({
      wire_item_id: first,
      status: 'submitted',
      origin: 'tsunami',
      url: 'https://www.theblockcrypto.com/linked/52102/binance-futures-launches-xrp-perpetual-contract',
    });
    const row = await deps.db.selectFrom('stories').select(['promoted_at', 'promoted_article_id', 'source_count']).where('id', '=', story).executeTakeFirstOrThrow();
    expect(row.promoted_at).not.toBeNull();
    expect(row).toMatchObject({ promoted_article_id: item!.id, source_count: 2 });
    expect(await promotedEvents(item!.id)).toBe(1);
    const assigned = await deps.db.selectFrom('event_log').select('payload').where('type', '=', 'story.assigned').execute();
    expect(assigned.filter((e) => (e.payload as { promoted_article_id?: number }).promoted_article_id === item!.id)).toHaveLength(1);
  });

  it('one source produces no queue item from this rule, however many of its items join', async () => {
    const [a, b] = await ingest('Bitcoinist', [
      ['https://bitcoinist.com/3-reasons-why-xrp-is-climbing-right-now/', '3 Reasons Why XRP is Climbing Right Now'],
      ['https://bitcoinist.com/3-reasons-why-xrp-is-climbing-right-now-update/', '3 Reasons Why XRP is Climbing Right Now'],
    ]);
    const s = await storyOf(a!);
    expect(await storyOf(b!)).toBe(s);
    const row = await deps.db.selectFrom('stories').select(['promoted_at', 'source_count']).where('id', '=', s).executeTakeFirstOrThrow();
    expect(row).toEqual({ promoted_at: null, source_count: 1 });
    expect(await queueItems(s)).toEqual([]);
  });

  it('a third source and a retried assignment add nothing', async () => {
    const [third] = await ingest('CoinGape', [
      ['https://coingape.com/binance-futures-launches-xrp-usdt-contracts-with-75x-max-leverage/', 'Binance Futures Launches XRP/USDT Contracts with 75x Max Leverage'],
    ]);
    expect(await storyOf(third!)).toBe(story);
    const again = await assignStoryItem(deps.db, 'wire', second, new Date(), { promoteMinSources: 2 });
    expect(again).toEqual({ outcome: 'unchanged', storyId: story });
    const job = await deps.queue.enqueueAndWait('story-assign', { kind: 'wire', id: second }, 10_000);
    expect(job.state).toBe('completed');
    const items = await queueItems(story);
    expect(items).toHaveLength(1);
    expect(await promotedEvents(items[0]!.id)).toBe(1);
  });

  it("the promotion job's claim: another member of a promoted story is not promoted automatically", async () => {
    const r = await deps.db.transaction().execute((trx) => promoteWireItemIn(trx, second, { promotedBy: null, now: new Date(), claimStory: true }));
    expect(r).toEqual({ outcome: 'story_promoted', storyId: story, wireItemId: second });
    expect(await queueItems(story)).toHaveLength(1);
  });

  it('concurrent assignments of a newly corroborated story promote it once', async () => {
    const [x] = await ingest('CoinTelegraph', [
      [
        'https://cointelegraph.com/news/south-korean-presidential-committee-recommends-allowing-bitcoin-derivatives',
        'South Korean Presidential Committee Recommends Allowing Bitcoin Derivatives',
      ],
    ]);
    const [y] = await ingest('Crypto Potato', [
      [
        'https://cryptopotato.com/south-korean-commission-korean-firms-should-be-allowed-to-launch-bitcoin-derivatives/',
        'South Korean Commission: Korean Firms Should Be Allowed To Launch Bitcoin Derivatives',
      ],
    ]);
    // The worker's jobs race with direct calls for the same items.
    await Promise.all([x!, y!, x!, y!].map((id) => assignStoryItem(deps.db, 'wire', id, new Date(), { promoteMinSources: 2 })));
    const s = await storyOf(x!);
    expect(await storyOf(y!)).toBe(s);
    await expect.poll(async () => (await queueItems(s)).length, { timeout: 10_000, interval: 25 }).toBe(1);
    const rows = await deps.db.selectFrom('story_members').select('item_id').where('story_id', '=', s).execute();
    expect(rows).toHaveLength(2);
  });
});
