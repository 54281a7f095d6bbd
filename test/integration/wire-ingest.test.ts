import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobDeps } from '../../jobs/define.js';
import type { Config } from '../../src/platform/config.js';
import { addSource, setSourceEnabled } from '../../src/wire/queries.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';

let relay: RunningRelay;

let deps: TestDeps;
let workers: Worker[] = [];
let server: http.Server;
let base: string;
const hits: Record<string, { count: number; ifNoneMatch: string[]; ifModifiedSince: string[] }> = {};
const logLines: any[] = [];
let coindeskId = 0;

const rssItems = [1, 2, 3].map((i) => ({ url: `https://coindesk.example/markets/story-${i}?utm_source=rss`, title: `RSS story ${i}`, date: `Tue, 0${i} Jun 2025 10:00:00 GMT` }));

function rss(items: { url: string; title: string; date: string }[]) {
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>CoinDesk-ish</title>${items
    .map((i) => `<item><title>${i.title}</title><link>${i.url.replace(/&/g, '&amp;')}</link><pubDate>${i.date}</pubDate><description>About ${i.title}</description></item>`)
    .join('')}</channel></rss>`;
}

const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom wire</title>
  <entry><title>Atom story A</title><link href="https://theblock.example/post/a"/><id>a</id><published>2025-06-05T10:00:00Z</published></entry>
  <entry><title>Atom story B</title><link href="/post/b"/><id>b</id><updated>2025-06-05T11:00:00Z</updated></entry></feed>`;

const jsonFeed = JSON.stringify({
  version: 'https://jsonfeed.org/version/1.1',
  title: 'JSON wire',
  items: [
    { id: 'j1', url: 'https://decrypt.example/j1', title: 'JSON story 1', date_published: '2025-06-06T10:00:00Z' },
    { id: 'j2', url: 'https://mobile.twitter.com/someone/status/123?s=20', title: 'JSON story 2' },
  ],
});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const h = (hits[path] ??= { count: 0, ifNoneMatch: [], ifModifiedSince: [] });
    h.count++;
    if (req.headers['if-none-match']) h.ifNoneMatch.push(String(req.headers['if-none-match']));
    if (req.headers['if-modified-since']) h.ifModifiedSince.push(String(req.headers['if-modified-since']));
    switch (path) {
      case '/rss.xml':
        if (req.headers['if-none-match'] === '"rss-v1"') {
          res.writeHead(304, { etag: '"rss-v1"' });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', etag: '"rss-v1"', 'last-modified': 'Tue, 03 Jun 2025 10:00:00 GMT' });
        return res.end(rss(rssItems));
      case '/rss-no-validators.xml':
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(rss(rssItems));
      case '/overlap.xml':
        // Another outlet's feed carrying two of the same stories (other tracking parameters) and one of its own.
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        return res.end(
          rss([
            { url: 'https://coindesk.example/markets/story-1?fbclid=zzz', title: 'RSS story 1 (syndicated)', date: 'Wed, 04 Jun 2025 10:00:00 GMT' },
            { url: 'https://coindesk.example/markets/story-2', title: 'RSS story 2 (syndicated)', date: 'Wed, 04 Jun 2025 10:00:00 GMT' },
            { url: 'https://overlap.example/own', title: 'Overlap own story', date: 'Wed, 04 Jun 2025 10:00:00 GMT' },
          ]),
        );
      case '/atom.xml':
        res.writeHead(200, { 'content-type': 'application/atom+xml' });
        return res.end(atom);
      case '/feed.json':
        res.writeHead(200, { 'content-type': 'application/feed+json' });
        return res.end(jsonFeed);
      case '/broken.xml':
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        return res.end('<?xml version="1.0"?><rss><channel><item><title>Cut off mid-');
      case '/error.xml':
        res.writeHead(500, { 'content-type': 'text/plain' });
        return res.end('upstream broke');
      case '/image.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end('PNG');
      case '/slow.xml':
        return; // never answers: the fetch deadline must fire
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  deps = await createTestDeps();
  relay = await startRelay(deps);
  const log = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
  const config = { ...deps.config, OUTBOUND_ALLOW_PRIVATE: true, WIRE_FETCH_TIMEOUT_MS: 300, WIRE_BACKOFF_MAX_S: 3600 } as Config;
  const jobDeps: JobDeps = { config, db: deps.db, redis: deps.redis, events: deps.events, log, enqueue: deps.queue.enqueuer };
  workers = startWorkers(jobDeps, {
    redisUrl: deps.config.REDIS_URL,
    prefix: deps.config.QUEUE_PREFIX,
    lockDurationMs: 5000,
    concurrencyCap: 8,
    only: ['wire-fetch', 'wire-fetch-due'],
  });
});

afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await deps.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  logLines.length = 0;
});

async function source(name: string, path: string, opts: { weight?: number; pollIntervalS?: number } = {}) {
  return addSource(deps.db, { name, url: `${base}${path}`, ...opts });
}

async function fetchNow(sourceId: number) {
  return deps.queue.enqueueAndWait('wire-fetch', { source_id: sourceId }, 15_000);
}

async function events(type?: string) {
  await relayed(deps);
  const entries = (await deps.redis.xrange(deps.events.streamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => JSON.parse(f[1])).filter((e) => !type || e.type === type);
}

async function sourceRow(id: number) {
  return deps.db.selectFrom('wire_sources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('wire-fetch: formats, receipts and events', () => {
  it('RSS 2.0: stores each item with source, our ingest time, the publisher claim and the normalised URL; publishes news.tsunami', async () => {
    const s = await source('CoinDesk RSS', '/rss.xml', { weight: 1.5 });
    coindeskId = s.id;
    const before = Date.now();
    const r = await fetchNow(s.id);
    expect(r.state).toBe('completed');
    if (r.state === 'completed') expect(r.result).toMatchObject({ status: 200, format: 'rss', items: 3, created: 3 });
    const items = await deps.db.selectFrom('wire_items').selectAll().where('source_id', '=', s.id).orderBy('id').execute();
    expect(items.map((i) => i.normalized_url)).toEqual([1, 2, 3].map((i) => `https://coindesk.example/markets/story-${i}`));
    expect(items[0]).toMatchObject({
      title: 'RSS story 1',
      source_name: 'CoinDesk RSS',
      source_url: `${base}/rss.xml`,
      url: 'https://coindesk.example/markets/story-1?utm_source=rss',
    });
    expect(items[0].publisher_claimed_at?.toISOString()).toBe('2025-06-01T10:00:00.000Z');
    expect(items[0].ingested_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const tsunami = (await events('news.tsunami')).filter((e) => items.some((i) => i.id === e.id));
    expect(tsunami).toHaveLength(3);
    expect(tsunami[0]).toMatchObject({
      type: 'news.tsunami',
      id: items[0].id,
      status: 'ingested',
      origin: 'tsunami',
      headline: 'RSS story 1',
      slug: 'rss-story-1',
      sponsored: null,
    });
    expect(tsunami[0].date_posted).toBe(items[0].ingested_at.toISOString());
    const row = await sourceRow(s.id);
    expect(row).toMatchObject({ etag: '"rss-v1"', last_modified: 'Tue, 03 Jun 2025 10:00:00 GMT', format: 'rss', last_status: 200, consecutive_failures: 0, items_ingested: 3 });
  });

  it('conditional GET: the next fetch sends If-None-Match / If-Modified-Since, gets 304 and stores nothing', async () => {
    const s = { id: coindeskId };
    expect(hits['/rss.xml'].ifNoneMatch).toEqual([]);
    const eventsBefore = (await events()).length;
    const r = await fetchNow(s.id);
    expect(r.state === 'completed' && r.result).toMatchObject({ status: 304, created: 0 });
    expect(hits['/rss.xml'].ifNoneMatch).toContain('"rss-v1"');
    expect(hits['/rss.xml'].ifModifiedSince).toContain('Tue, 03 Jun 2025 10:00:00 GMT');
    expect((await events()).length).toBe(eventsBefore);
    expect((await sourceRow(s.id)).last_status).toBe(304);
  });

  it('Atom and JSON Feed (relative links resolved, twitter.com normalised to x.com)', async () => {
    const a = await source('Atom wire', '/atom.xml');
    const j = await source('JSON wire', '/feed.json');
    const [ra, rj] = await Promise.all([fetchNow(a.id), fetchNow(j.id)]);
    expect(ra.state === 'completed' && ra.result).toMatchObject({ format: 'atom', created: 2 });
    expect(rj.state === 'completed' && rj.result).toMatchObject({ format: 'json', created: 2 });
    const urls = (await deps.db.selectFrom('wire_items').select('normalized_url').where('source_id', 'in', [a.id, j.id]).execute()).map((r) => r.normalized_url).sort();
    expect(urls).toEqual([`${base}/post/b`, 'https://decrypt.example/j1', 'https://theblock.example/post/a', 'https://x.com/someone/status/123'].sort());
  });
});

describe('wire-fetch: idempotency', () => {
  it('re-running a feed without validators stores nothing twice and publishes nothing twice', async () => {
    const s = await source('No validators', '/rss-no-validators.xml');
    const first = await fetchNow(s.id);
    // Same URLs as /rss.xml, already stored by the first test: no new items, only this source's receipts.
    expect(first.state === 'completed' && first.result).toMatchObject({ created: 0, receipts: 3 });
    const eventsBefore = (await events('news.tsunami')).length;
    const again = await fetchNow(s.id);
    expect(again.state === 'completed' && again.result).toMatchObject({ created: 0, receipts: 0 });
    expect((await events('news.tsunami')).length).toBe(eventsBefore);
  });

  it('concurrent runs of overlapping sources create each URL once, with one receipt per source', async () => {
    const a = await source('Overlap A', '/overlap.xml');
    const b = await source('Overlap B', '/overlap.xml?copy=1');
    const eventsBefore = (await events('news.tsunami')).length;
    const runs = await Promise.all([fetchNow(a.id), fetchNow(b.id), fetchNow(a.id), fetchNow(b.id)]);
    expect(runs.every((r) => r.state === 'completed')).toBe(true);
    const own = await deps.db.selectFrom('wire_items').select('id').where('normalized_url', '=', 'https://overlap.example/own').execute();
    expect(own).toHaveLength(1);
    const receipts = await deps.db.selectFrom('wire_receipts').select(['source_name']).where('wire_item_id', '=', own[0].id).orderBy('source_name').execute();
    expect(receipts.map((r) => r.source_name)).toEqual(['Overlap A', 'Overlap B']);
    // story-1 and story-2 existed already (from CoinDesk RSS); only the overlap's own story is new: one event.
    expect((await events('news.tsunami')).length - eventsBefore).toBe(1);
    const story1 = await deps.db
      .selectFrom('wire_receipts')
      .innerJoin('wire_items', 'wire_items.id', 'wire_receipts.wire_item_id')
      .select('wire_receipts.source_name')
      .where('wire_items.normalized_url', '=', 'https://coindesk.example/markets/story-1')
      .execute();
    expect(story1.map((r) => r.source_name).sort()).toEqual(['CoinDesk RSS', 'No validators', 'Overlap A', 'Overlap B']);
  });
});

describe('wire-fetch: failures are logged, backed off and retried, and never stop other sources', () => {
  it('a malformed feed fails without retry, is logged and recorded, and backs off', async () => {
    const s = await source('Broken', '/broken.xml', { pollIntervalS: 60 });
    const started = Date.now();
    const r = deps.queue.enqueueAndWait('wire-fetch', { source_id: s.id }, 10_000);
    await expect(r).rejects.toThrow(/malformed feed/);
    expect(hits['/broken.xml'].count).toBe(1); // permanent: not retried by the queue
    const row = await sourceRow(s.id);
    expect(row.consecutive_failures).toBe(1);
    expect(row.last_error).toMatch(/parse: malformed feed/);
    expect(row.next_fetch_at.getTime() - started).toBeGreaterThan(100_000); // 60 s x 2^1
    expect(logLines.some((l) => l.msg === 'wire source fetch failed' && l.source === 'Broken' && l.level === 40)).toBe(true);
  });

  it('an HTTP 500 is retried with backoff by the queue, then recorded', async () => {
    const s = await source('Erroring', '/error.xml', { pollIntervalS: 30 });
    await expect(deps.queue.enqueueAndWait('wire-fetch', { source_id: s.id }, 15_000)).rejects.toThrow(/HTTP 500/);
    expect(hits['/error.xml'].count).toBe(3);
    const row = await sourceRow(s.id);
    expect(row).toMatchObject({ consecutive_failures: 3, last_status: 500 });
    expect(row.next_fetch_at.getTime() - Date.now()).toBeGreaterThan(200_000); // 30 s x 2^3
  }, 20_000);

  it('a feed that never answers times out (WIRE_FETCH_TIMEOUT_MS) while other sources are ingested meanwhile', async () => {
    const slow = await source('Slow', '/slow.xml');
    const other = await source('Healthy JSON', '/feed.json?copy=2');
    const slowRun = deps.queue.enqueueAndWait('wire-fetch', { source_id: slow.id }, 15_000);
    const otherRun = await fetchNow(other.id);
    expect(otherRun.state).toBe('completed');
    await expect(slowRun).rejects.toThrow(/timeout/);
    expect((await sourceRow(slow.id)).last_error).toMatch(/^timeout/);
  }, 20_000);

  it('a response that is not a feed type is refused', async () => {
    const s = await source('Image', '/image.png');
    await expect(deps.queue.enqueueAndWait('wire-fetch', { source_id: s.id }, 10_000)).rejects.toThrow(/bad_content_type/);
  });

  it('private addresses are refused when OUTBOUND_ALLOW_PRIVATE is off', async () => {
    const strict = await createTestDeps();
    const config = { ...strict.config, OUTBOUND_ALLOW_PRIVATE: false } as Config;
    const w = startWorkers(
      { config, db: strict.db, redis: strict.redis, events: strict.events, log: strict.log, enqueue: strict.queue.enqueuer },
      { redisUrl: strict.config.REDIS_URL, prefix: strict.config.QUEUE_PREFIX, lockDurationMs: 5000, concurrencyCap: 2, only: ['wire-fetch'] },
    );
    try {
      const s = await addSource(strict.db, { name: 'Loopback', url: `${base}/rss.xml` });
      const before = hits['/rss.xml'].count;
      await expect(strict.queue.enqueueAndWait('wire-fetch', { source_id: s.id }, 10_000)).rejects.toThrow(/blocked_address/);
      expect(hits['/rss.xml'].count).toBe(before);
      const row = await strict.db.selectFrom('wire_sources').select('last_error').where('id', '=', s.id).executeTakeFirstOrThrow();
      expect(row.last_error).toMatch(/blocked_address/);
    } finally {
      await Promise.all(w.map((x) => x.close()));
      await strict.close();
    }
  });

  it('a disabled or removed source is skipped', async () => {
    const s = await source('Disabled', '/atom.xml?disabled=1');
    await setSourceEnabled(deps.db, s.id, false);
    const r = await fetchNow(s.id);
    expect(r.state === 'completed' && r.result).toMatchObject({ skipped: true });
    const gone = await fetchNow(999_999);
    expect(gone.state === 'completed' && gone.result).toMatchObject({ skipped: true });
  });
});

describe('wire-fetch-due: the scheduled fan-out', () => {
  it('enqueues one wire-fetch per enabled, due source; broken sources do not hold up healthy ones', async () => {
    await deps.db.updateTable('wire_sources').set({ enabled: false }).execute();
    const healthy = await source('Due healthy', '/feed.json?due=1');
    const broken = await source('Due broken', '/broken.xml?due=1');
    const notDue = await source('Not due', '/atom.xml?due=1');
    await deps.db
      .updateTable('wire_sources')
      .set({ next_fetch_at: new Date(Date.now() + 3600_000) })
      .where('id', '=', notDue.id)
      .execute();
    const r = await deps.queue.enqueueAndWait('wire-fetch-due', {}, 10_000);
    expect(r.state === 'completed' && r.result).toEqual({ enqueued: 2 });
    await expect.poll(async () => (await sourceRow(healthy.id)).last_status, { timeout: 10_000 }).toBe(200);
    await expect.poll(async () => (await sourceRow(broken.id)).consecutive_failures, { timeout: 10_000 }).toBe(1);
    expect((await sourceRow(notDue.id)).last_fetched_at).toBeNull();
    // A second fan-out right away finds nothing due (both were rescheduled).
    const again = await deps.queue.enqueueAndWait('wire-fetch-due', {}, 10_000);
    expect(again.state === 'completed' && again.result).toEqual({ enqueued: 0 });
  });
});
