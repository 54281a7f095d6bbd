import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';

let deps: TestDeps;
let relay: RunningRelay;
let http: ReturnType<typeof request>;
let workers: Worker[] = [];
let user: Session;
let editor: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  http = request(createApp(deps));
  workers = startWorkers(
    { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
    { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 10_000, concurrencyCap: 2, only: ['story-assign'] },
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'surfacer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'surface_ed' });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await relay.close();
  await http.close();
  await deps.close();
});

async function submit(url: string, headline: string): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url, headline }, user.bearer);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.article_id as number;
}

async function assigned(id: number): Promise<number> {
  const read = async () => (await deps.db.selectFrom('articles').select('story_id').where('id', '=', id).executeTakeFirstOrThrow()).story_id;
  await expect.poll(read, { timeout: 10_000, interval: 25 }).not.toBeNull();
  return (await read())!;
}

async function streamEventsFor(id: number): Promise<Record<string, unknown>[]> {
  await relayed(deps);
  const entries = (await deps.redis.xrange(deps.events.streamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => JSON.parse(f[1]!) as Record<string, unknown>).filter((e) => e.id === id);
}

describe('story_id on lifecycle events', () => {
  it('news.submitted carries story_id null; news.approved after assignment carries the story, on the stream, the log and GET /events/', async () => {
    const id = await submit('https://surfaces.example/markets/etf-inflows-hit-record', 'Spot bitcoin ETF inflows hit a record $1.2B in one day');
    const storyId = await assigned(id);
    const approve = await http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer);
    expect(approve.status).toBe(200);
    const evs = await streamEventsFor(id);
    expect(evs.map((e) => e.type)).toEqual(['news.submitted', 'news.approved']);
    expect(evs[0]).toHaveProperty('story_id', null);
    expect(evs[1]).toMatchObject({ type: 'news.approved', id, story_id: storyId });
    const logged = await deps.db
      .selectFrom('event_log')
      .select(['type', 'payload'])
      .where('article_id', '=', id)
      .where('visibility', '!=', 'internal')
      .orderBy('event_id')
      .execute();
    // Webhook deliveries send the logged payload as their `data`, byte for byte.
    expect(logged.map((r) => (r.payload as { story_id?: unknown }).story_id)).toEqual([null, storyId]);
    const pulled = await http.get('/api/v1/events/?types=news.approved');
    expect(pulled.status).toBe(200);
    expect(pulled.body.results.find((e: { id: number }) => e.id === id)).toMatchObject({ story_id: storyId });
  });
});
