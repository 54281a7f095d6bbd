/**
 * The feed cache's per-process copies (src/feed/cache.ts): a web process serves hot pages
 * from memory, but only while it has confirmed the cache generation within FEED_GEN_CHECK_MS, so a
 * change announced by another process (a worker's hot-score run, another web process's edit)
 * reaches its anonymous readers that fast, not after the 2 s TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { FEED_CACHE_TTL_MS, FEED_GEN_CHECK_MS, FeedCache, LOCAL_MAX_BYTES } from '../../src/feed/cache.js';
import { sessionFor } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { ManualClock } from '../support/manual-clock.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let articleId: number;
const PATH = '/api/v1/news/?sort_type=new&per_page=1';
/**
 * A fixed wait that is the bound under test, not a wait for a condition: a request made
 * FEED_GEN_CHECK_MS (+10 ms) after the bump must already see the change. Polling would only show
 * that it arrives eventually.
 */
const pastTheCheckWindow = () => new Promise((r) => setTimeout(r, FEED_GEN_CHECK_MS + 10));

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  const alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  const row = await deps.db
    .insertInto('articles')
    .values({
      slug: 'cache-probe',
      headline: 'Before',
      url: 'https://site.example/cache-probe',
      normalized_url: 'https://site.example/cache-probe',
      source: 'site.example',
      status: 'approved',
      submitted_by: alice.userId,
      published_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  articleId = row.id;
});

afterAll(async () => {
  await deps?.close();
});

const headline = async () => (await http.get(PATH)).body.results[0].headline as string;
const rename = (h: string) => deps.db.updateTable('articles').set({ headline: h }).where('id', '=', articleId).execute();

describe('feed cache copies in the web process', () => {
  it('serve anonymous readers until another process bumps the generation, then retire within FEED_GEN_CHECK_MS', async () => {
    expect(await headline()).toBe('Before');
    await rename('After');
    expect(await headline()).toBe('Before'); // cached (the change was made behind the API's back)
    // What invalidateFeedCache() does in a worker or another web process: only the Redis counter moves.
    await deps.redis.incr(`${deps.config.QUEUE_PREFIX}:feed:gen`);
    await pastTheCheckWindow();
    expect(await headline()).toBe('After');
    expect(FEED_GEN_CHECK_MS * 20).toBeLessThan(FEED_CACHE_TTL_MS);
  });

  it('never outlive the Redis entry when nothing is announced', async () => {
    await rename('Third');
    await deps.redis.incr(`${deps.config.QUEUE_PREFIX}:feed:gen`);
    await pastTheCheckWindow();
    expect(await headline()).toBe('Third');
    await rename('Fourth');
    // Nothing announced: the page may stay cached, but never past the entry's expiry.
    await expect.poll(headline, { timeout: FEED_CACHE_TTL_MS + 1500, interval: 100 }).toBe('Fourth');
  });

  it('stay servable under a steady stream of hits: the generation is confirmed ahead, in the background', async () => {
    const prefix = `${deps.config.QUEUE_PREFIX}:ahead`;
    const TRUST = 1000;
    const clock = new ManualClock();
    const cache = new FeedCache(deps.redis, prefix, 60_000, TRUST, clock);
    await cache.getOrCompute('k', async () => Buffer.from('page'));
    // A round trip on the cache's own connection: replies come in order, so the background
    // confirmation started by the hit before it has been answered and learnt.
    const confirmed = () => deps.redis.ping();
    // A hit past half the trust starts a confirmation; by the next hit the first read's trust is
    // over, the confirmed one's is not, so the copy is still served without a request of its own.
    clock.advance(0.6 * TRUST);
    expect(cache.localHit('k')?.toString()).toBe('page');
    await confirmed();
    clock.advance(0.6 * TRUST);
    expect(cache.localHit('k')?.toString()).toBe('page');
    await confirmed();
    // A bump seen by such a confirmation retires the copy.
    await deps.redis.incr(`${prefix}:feed:gen`);
    clock.advance(0.6 * TRUST);
    cache.localHit('k');
    await expect.poll(() => cache.localHit('k')).toBeUndefined();
    // Without hits nothing is confirmed: the trust runs out.
    await cache.getOrCompute('k2', async () => Buffer.from('page 2'));
    clock.advance(1.1 * TRUST);
    expect(cache.localHit('k2')).toBeUndefined();
  });

  it('hold at most LOCAL_MAX_BYTES of pages in memory, dropping the oldest first', async () => {
    const prefix = `${deps.config.QUEUE_PREFIX}:budget`;
    // A long generation-check window so that only the byte budget decides what is served from memory.
    const cache = new FeedCache(deps.redis, prefix, 60_000, 60_000);
    const third = Math.floor(LOCAL_MAX_BYTES / 3) + 1;
    const page = (c: string) => async () => Buffer.alloc(third, c);
    for (const k of ['k0', 'k1', 'k2', 'k3']) await cache.getOrCompute(k, page(k.at(-1)!));
    // Behind its back the shared entries vanish: a page still held in memory is served as it was,
    // one the budget pushed out is computed again.
    await deps.redis.del(...['k0', 'k1', 'k2', 'k3'].map((k) => `${prefix}:feed:v:${k}`));
    const again = async (k: string) => (await cache.getOrCompute(k, async () => Buffer.from('recomputed'))).subarray(0, 10).toString();
    expect(await again('k3')).toBe('3333333333');
    expect(await again('k2')).toBe('2222222222');
    expect(await again('k0')).toBe('recomputed');
  });
});
