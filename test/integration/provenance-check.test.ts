import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { createApp } from '../../src/app.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { startTestWorkers } from '../support/workers.js';
import { createTestDeps } from '../support/context.js';
import request from '../support/request.js';
import { useTestApp } from '../support/app.js';
import { insertSubmitted } from '../support/articles.js';

const app = useTestApp(undefined, { TRUST_PROXY: 'true', JOB_WAIT_MS: '5000' });
let workers: Worker[] = [];
const H = 3600_000;
const D = 24 * H;
let ipSeq = 0;
/** A fresh client IP per test (TRUST_PROXY is on), so per-IP limits of one test never touch another. */
const newIp = () => ({ 'x-forwarded-for': `198.51.100.${++ipSeq}` });

function runWorkers() {
  workers = startTestWorkers(app.deps, ['provenance-check']);
}

beforeAll(async () => {
  runWorkers();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

async function article(o: { headline: string; url: string; ageMs: number; status?: ArticleStatus; sponsored?: boolean; origin?: string }) {
  const created = new Date(Date.now() - o.ageMs);
  const status = o.status ?? 'approved';
  return insertSubmitted(app.deps.db, { ...o, status, createdAt: created, publishedAt: status === 'approved' ? created : null });
}

async function wireSighting(url: string, sources: { name: string; ageMs: number; claimedAgeMs?: number }[]) {
  const n = normalizeUrl(url)!;
  const first = sources[0];
  const item = await app.deps.db
    .insertInto('wire_items')
    .values({
      normalized_url: n,
      url,
      title: 'wire title',
      source_name: first.name,
      source_url: `https://${first.name}.example/feed.xml`,
      ingested_at: new Date(Date.now() - first.ageMs),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const s of sources) {
    await app.deps.db
      .insertInto('wire_receipts')
      .values({
        wire_item_id: item.id,
        source_name: s.name,
        source_url: `https://${s.name}.example/feed.xml`,
        item_url: url,
        ingested_at: new Date(Date.now() - s.ageMs),
        publisher_claimed_at: s.claimedAgeMs === undefined ? null : new Date(Date.now() - s.claimedAgeMs),
      })
      .execute();
  }
}

const check = (body: unknown) => app.http.post('/api/v1/provenance/check', body, newIp());

describe('POST /provenance/check: validation', () => {
  it.each([
    ['no url and no text', {}],
    ['empty strings', { url: '', text: '' }],
    ['blank text', { text: '   ' }],
    ['url of the wrong type', { url: 42 }],
    ['text of the wrong type', { text: ['a'] }],
    ['a non-http URL', { url: 'ftp://example.com/file' }],
    ['not a URL', { url: 'example dot com' }],
    ['text too long', { text: 'x'.repeat(501) }],
    ['an unknown field', { url: 'https://example.com/a', verdict: 'new' }],
  ])('%s -> 400 validation_failed', async (_label, body) => {
    const r = await check(body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.details.fields.length).toBeGreaterThan(0);
  });

  it('refuses text PostgreSQL cannot store (a NUL byte) at the boundary with 400, before any job runs', async () => {
    const r = await check({ text: 'hello\u0000world' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.details.fields).toEqual([{ path: 'body.text', code: 'forbidden_character', message: 'must not contain a NUL byte (U+0000)' }]);
    const q = await app.http.get('/api/v1/provenance/search?q=a%00b', newIp());
    expect(q.status).toBe(400);
    expect(q.body.error.details.fields[0].code).toBe('forbidden_character');
  });

  it('rejects a non-JSON body with a 4xx in the error shape', async () => {
    const r = await app.http.request('POST', '/api/v1/provenance/check', '{"url":', { 'content-type': 'application/json', ...newIp() });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('malformed_json');
  });
});

describe('POST /provenance/check: URL matching and verdicts', () => {
  it('new: nothing seen; the normalised URL is echoed and first_seen is null', async () => {
    const r = await check({ url: 'https://Example.com/never-seen/?utm_source=x&b=2&a=1#top' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      verdict: 'new',
      match_count: 0,
      matches: [],
      tsunami_receipts: [],
      first_seen: null,
      latest_seen: null,
      normalized_url: 'https://example.com/never-seen?a=1&b=2',
    });
    expect(r.body.meta).toMatchObject({ first_seen_basis: 'leviathan_observation', lookback_days: 30, methods: ['url'] });
  });

  it('known: one curated article with the same normalised URL (tracking parameters and twitter.com alias ignored)', async () => {
    const id = await article({ headline: 'Vitalik on the roadmap', url: 'https://x.com/VitalikButerin/status/1790000000000000001', ageMs: 3 * D });
    const r = await check({ url: 'https://mobile.twitter.com/VitalikButerin/status/1790000000000000001?s=20&t=abc&utm_campaign=z' });
    expect(r.body.verdict).toBe('known');
    expect(r.body.match_count).toBe(1);
    expect(r.body.matches[0]).toMatchObject({
      news_id: id,
      headline: 'Vitalik on the roadmap',
      source: 'x.com',
      canonical_url: 'https://x.com/VitalikButerin/status/1790000000000000001',
      similarity: 1,
      method: 'url',
    });
    expect(Date.parse(r.body.first_seen)).toBeCloseTo(Date.now() - 3 * D, -4);
  });

  it('duplicate: two matches, the latest younger than 24 hours', async () => {
    await article({ headline: 'Dup story', url: 'https://coindesk.example/dup-1', ageMs: 5 * D });
    await article({ headline: 'Dup story again', url: 'https://coindesk.example/dup-1?utm_medium=social', ageMs: 2 * H });
    const r = await check({ url: 'https://coindesk.example/dup-1' });
    expect(r.body.verdict).toBe('duplicate');
    expect(r.body.match_count).toBe(2);
    expect(Date.parse(r.body.latest_seen)).toBeGreaterThan(Date.parse(r.body.first_seen));
  });

  it('known: an older single confirmation (two matches, latest between 24 h and 7 days old)', async () => {
    await article({ headline: 'Older pair 1', url: 'https://coindesk.example/older-pair', ageMs: 6 * D });
    await article({ headline: 'Older pair 2', url: 'https://coindesk.example/older-pair', ageMs: 2 * D });
    expect((await check({ url: 'https://coindesk.example/older-pair' })).body.verdict).toBe('known');
  });

  it('stale: every match older than 7 days', async () => {
    await article({ headline: 'Old news', url: 'https://coindesk.example/old', ageMs: 9 * D });
    const r = await check({ url: 'https://coindesk.example/old' });
    expect(r.body.verdict).toBe('stale');
    expect(r.body.match_count).toBe(1);
  });

  it('the lookback is 30 days: an older article does not match', async () => {
    await article({ headline: 'Ancient', url: 'https://coindesk.example/ancient', ageMs: 31 * D });
    expect((await check({ url: 'https://coindesk.example/ancient' })).body.verdict).toBe('new');
  });

  it('only curated articles match: submitted, killed and sponsored ones do not', async () => {
    await article({ headline: 'Pending', url: 'https://coindesk.example/pending', ageMs: H, status: 'submitted' });
    await article({ headline: 'Killed', url: 'https://coindesk.example/killed', ageMs: H, status: 'killed' });
    await article({ headline: 'Ad', url: 'https://coindesk.example/ad', ageMs: H, sponsored: true });
    for (const u of ['pending', 'killed', 'ad']) expect((await check({ url: `https://coindesk.example/${u}` })).body.verdict).toBe('new');
  });

  it('wire sightings come back as tsunami_receipts with our ingest time and the publisher claim, and set first_seen', async () => {
    await wireSighting('https://theblock.example/post/42?utm_source=rss', [
      { name: 'wire-a', ageMs: 10 * H, claimedAgeMs: 40 * D },
      { name: 'wire-b', ageMs: 2 * H },
    ]);
    const id = await article({ headline: 'Block story', url: 'https://theblock.example/post/42', ageMs: H });
    const r = await check({ url: 'https://theblock.example/post/42' });
    expect(r.body.verdict).toBe('known');
    expect(r.body.matches.map((m: any) => m.news_id)).toEqual([id]);
    expect(r.body.tsunami_receipts).toHaveLength(2);
    expect(r.body.tsunami_receipts[0]).toMatchObject({
      source_name: 'wire-a',
      source_url: 'https://wire-a.example/feed.xml',
      item_url: 'https://theblock.example/post/42?utm_source=rss',
    });
    // The publisher's (much older) claim is reported but first_seen is our own observation.
    expect(Date.parse(r.body.tsunami_receipts[0].publisher_claimed_time)).toBeCloseTo(Date.now() - 40 * D, -4);
    expect(Date.parse(r.body.first_seen)).toBeCloseTo(Date.now() - 10 * H, -4);
    expect(Date.parse(r.body.latest_seen)).toBeCloseTo(Date.now() - H, -4);
  });

  it('a URL only the wire has seen: verdict new (no editorial match) with receipts', async () => {
    await wireSighting('https://decrypt.example/only-wire', [{ name: 'wire-c', ageMs: 3 * H }]);
    const r = await check({ url: 'https://decrypt.example/only-wire' });
    expect(r.body).toMatchObject({ verdict: 'new', match_count: 0 });
    expect(r.body.tsunami_receipts).toHaveLength(1);
    expect(r.body.first_seen).not.toBeNull();
  });
});

describe('POST /provenance/check: headline similarity', () => {
  it('text only: matches a reworded curated headline (method headline, similarity below 1)', async () => {
    const id = await article({ headline: 'Binance CEO Changpeng Zhao pleads guilty, steps down', url: 'https://news.example/cz', ageMs: 5 * H });
    const r = await check({ text: 'Changpeng Zhao steps down as Binance CEO after pleading guilty' });
    expect(r.body.verdict).toBe('known');
    expect(r.body.normalized_url).toBeNull();
    expect(r.body.meta.methods).toEqual(['headline']);
    expect(r.body.matches[0]).toMatchObject({ news_id: id, method: 'headline', canonical_url: 'https://news.example/cz' });
    expect(r.body.matches[0].similarity).toBeGreaterThan(0.55);
    expect(r.body.matches[0].similarity).toBeLessThan(1);
  });

  it('text only: an identical headline scores exactly 1.0; an unrelated one does not match', async () => {
    await article({ headline: 'Polygon unveils zkEVM mainnet beta', url: 'https://news.example/zkevm', ageMs: 2 * H });
    const same = await check({ text: 'Polygon unveils zkEVM mainnet beta' });
    expect(same.body.matches[0].similarity).toBe(1);
    const other = await check({ text: 'Dogecoin developers ship a new wallet release' });
    expect(other.body).toMatchObject({ verdict: 'new', match_count: 0 });
  });

  it('a different story sharing a template stays apart when its figures differ', async () => {
    await article({ headline: 'Wormhole bridge exploited for $320M', url: 'https://news.example/wormhole', ageMs: 2 * H });
    expect((await check({ text: 'Nomad bridge exploited for $190M' })).body.verdict).toBe('new');
  });

  it('text matching only considers curated articles of the last 30 days', async () => {
    await article({ headline: 'Kraken settles SEC staking charges for $30 million', url: 'https://news.example/kraken-old', ageMs: 40 * D });
    await article({ headline: 'Kraken settles SEC staking charges for $30 million', url: 'https://news.example/kraken-ad', ageMs: H, sponsored: true });
    expect((await check({ text: 'Kraken settles SEC staking charges for $30 million' })).body.verdict).toBe('new');
  });

  it('url and text: a URL without matches falls back to the headline', async () => {
    const id = await article({ headline: 'Lido DAO votes to sunset Polygon staking', url: 'https://news.example/lido', ageMs: 3 * H });
    const r = await check({ url: 'https://other.example/lido-story', text: 'Lido to wind down staking on Polygon after DAO vote' });
    expect(r.body.meta.methods).toEqual(['url', 'headline']);
    expect(r.body.normalized_url).toBe('https://other.example/lido-story');
    expect(r.body.matches[0]).toMatchObject({ news_id: id, method: 'headline' });
  });

  it('url and text: a URL match wins and the text is not used', async () => {
    await article({ headline: 'Some headline', url: 'https://news.example/url-wins', ageMs: 3 * H });
    const r = await check({ url: 'https://news.example/url-wins', text: 'Completely different words here' });
    expect(r.body.meta.methods).toEqual(['url']);
    expect(r.body.matches[0].method).toBe('url');
  });
});

describe('202 polling path', () => {
  it('answers 202 with a job id when the worker is not done in time; the poll URL then gives the result', async () => {
    const slow = await createTestDeps({ TRUST_PROXY: 'true', JOB_WAIT_MS: '0' });
    const slowHttp = request(createApp(slow));
    try {
      const r = await slowHttp.post('/api/v1/provenance/check', { url: 'https://example.com/poll-me' }, newIp());
      expect(r.status).toBe(202);
      expect(r.body.status).toBe('pending');
      expect(r.body.poll_url).toBe(`/api/v1/provenance/check/${r.body.job_id}`);
      expect(r.headers.get('location')).toBe(r.body.poll_url);
      expect(r.headers.get('retry-after')).toBe('1');
      // No worker yet: still pending.
      const early = await slowHttp.get(r.body.poll_url, newIp());
      expect(early.status).toBe(202);
      const w = startTestWorkers(slow, ['provenance-check'], { concurrencyCap: 4 });
      try {
        await expect.poll(async () => (await slowHttp.get(r.body.poll_url, newIp())).status, { timeout: 10_000, interval: 100 }).toBe(200);
        const done = await slowHttp.get(r.body.poll_url, newIp());
        expect(done.body).toMatchObject({ verdict: 'new', normalized_url: 'https://example.com/poll-me' });
      } finally {
        await Promise.all(w.map((x) => x.close()));
      }
    } finally {
      await slowHttp.close();
      await slow.close();
    }
  });

  it('a poll at the instant a check completes gets the result or 202, never an empty answer', async () => {
    const slow = await createTestDeps({ TRUST_PROXY: 'true', JOB_WAIT_MS: '0' });
    const slowHttp = request(createApp(slow));
    // Every poll from its own address (198.18.0.0/15, the benchmarking range): no rate limit in the way.
    let polls = 0;
    const pollIp = () => ({ 'x-forwarded-for': `198.18.${Math.floor(polls / 250)}.${(polls++ % 250) + 1}` });
    try {
      const jobs = await Promise.all(
        Array.from(
          { length: 24 },
          async (_, k) => (await slowHttp.post('/api/v1/provenance/check', { url: `https://example.com/instant-${k}` }, pollIp())).body.poll_url as string,
        ),
      );
      const w = startTestWorkers(slow, ['provenance-check'], { concurrencyCap: 4 });
      try {
        // Each job polled back to back from before the workers start until its result: some polls
        // land while its state changes.
        const seen = await Promise.all(
          jobs.map(async (url) => {
            const statuses = new Map<number, number>();
            const until = Date.now() + 15_000;
            for (;;) {
              const r = await slowHttp.get(url, pollIp());
              statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
              if (r.status !== 202) {
                expect(r.status).toBe(200);
                expect(r.body.verdict).toBe('new');
                return statuses;
              }
              if (Date.now() > until) throw new Error(`${url} still pending`);
            }
          }),
        );
        for (const st of seen) expect([...st.keys()].sort()).toEqual([200, 202]);
      } finally {
        await Promise.all(w.map((x) => x.close()));
      }
    } finally {
      await slowHttp.close();
      await slow.close();
    }
  });

  it('an unknown job id is 404, a malformed one 400', async () => {
    const unknown = await app.http.get('/api/v1/provenance/check/7b0e2f8e-3c55-4f6a-9a58-1f2d3c4b5a69', newIp());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('provenance_job_not_found');
    const bad = await app.http.get('/api/v1/provenance/check/not-a-job', newIp());
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });
});

describe('rate limit', () => {
  it('check: 30 per minute per IP, then 429 with Retry-After (another IP is unaffected)', async () => {
    const ip = newIp();
    for (let i = 0; i < 30; i++) {
      const r = await app.http.post('/api/v1/provenance/check', {}, ip); // validation errors still count
      expect(r.status).toBe(400);
    }
    const limited = await app.http.post('/api/v1/provenance/check', { url: 'https://example.com/x' }, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await check({ url: 'https://example.com/x' })).status).toBe(200);
  });
});
