/**
 * The event relay (src/relay/relay.ts) against real PostgreSQL and Redis: several relays sharing the
 * outbox, a relay dying between its XADD and its commit, Redis unreachable, the waker (outbox probes),
 * and the side effects the relay performs once per batch.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createApp } from '../../src/app.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { EventPublisher, type AnyEventType } from '../../src/platform/events/events.js';
import { claimStatement, outboxDepth, recordEvents, recordEventsCommitted, type EventInput } from '../../src/platform/events/log.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { relayBatch, relayUntilEmpty, type RelayDeps } from '../../src/relay/relay.js';
import { RELAY_POLL_MS } from '../../src/relay/waker.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import request from '../support/request.js';
import { waitFor } from '../support/wait.js';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(async () => {
  await deps.close();
});

/** A stream of its own for one test, under the file's prefix (cleaned up with it). */
const streamKey = (name: string) => `${deps.config.QUEUE_PREFIX}:events:${name}`;

function relayDeps(over: Partial<RelayDeps> = {}): RelayDeps {
  return {
    config: deps.config,
    db: deps.db,
    redis: deps.redis,
    events: new EventPublisher(deps.redis, streamKey('default'), deps.config.EVENT_STREAM_MAXLEN),
    log: deps.log,
    enqueue: deps.queue.enqueuer,
    ...over,
  };
}

const ev = (type: AnyEventType, articleId: number | null, n: number): EventInput => ({ type, articleId, payload: { type, id: articleId ?? n, n } });

/** Record events in transactions of `perTx`; returns their ids in order. */
async function record(events: EventInput[], perTx = 500): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < events.length; i += perTx) {
    ids.push(...(await recordEventsCommitted(deps.db, events.slice(i, i + perTx))));
  }
  return ids;
}

interface StreamEvent {
  event_id: number;
  id: number;
  type: string;
  raw: string;
}

async function readStream(key: string): Promise<StreamEvent[]> {
  const entries = (await deps.redis.xrange(key, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => ({ ...JSON.parse(f[1]), raw: f[1] }));
}

const feedGen = async () => Number((await deps.redis.get(`${deps.config.QUEUE_PREFIX}:feed:gen`)) ?? 0);

describe('manual relays', () => {
  // Each test starts from an empty outbox, whatever an earlier failure left behind.
  beforeEach(async () => {
    await relayUntilEmpty(relayDeps({ events: new EventPublisher(deps.redis, streamKey('leftovers'), deps.config.EVENT_STREAM_MAXLEN) }));
  });

  it('two relays at once over 10,000 events: nothing lost, each article in order, work shared', async () => {
    const ARTICLES = 300;
    const N = 10_000;
    // Articles interleaved pseudo-randomly, so every batch holds events of most articles.
    const events = Array.from({ length: N }, (_, i) => ev('news.approved', 1 + ((i * 7919 + ((i * i) % 13)) % ARTICLES), i));
    const t0 = Date.now();
    const ids = await record(events);
    const recordMs = Date.now() - t0;
    expect(ids).toHaveLength(N);
    expect((await outboxDepth(deps.db)).pending).toBe(N);

    const key = streamKey('two-relays');
    // Two relays as two processes would run them: their own PostgreSQL pools and Redis connections.
    const pools: Db[] = ['relay-a', 'relay-b'].map((name) => createDb(deps.config.DATABASE_URL, { max: 2, applicationName: name }));
    const redises: Redis[] = ['relay-a', 'relay-b'].map((name) => createRedis(deps.config.REDIS_URL, 'command', name));
    try {
      // Connections open before the race starts, so neither relay gets a head start.
      await Promise.all([...pools.map((p) => sql`SELECT 1`.execute(p)), ...redises.map((r) => r.ping())]);
      const relays = pools.map((db, i) => relayDeps({ db, redis: redises[i], events: new EventPublisher(redises[i], key, deps.config.EVENT_STREAM_MAXLEN) }));
      const t1 = Date.now();
      const [a, b] = await Promise.all(relays.map((r) => relayUntilEmpty(r, { budgetMs: 30_000, limit: 200 })));
      const relayMs = Date.now() - t1;

      expect((await outboxDepth(deps.db)).pending).toBe(0);
      expect(a.relayed + b.relayed).toBe(N);
      // Both took part: the SKIP LOCKED claim really shared the work between two connections.
      expect(a.relayed).toBeGreaterThan(0);
      expect(b.relayed).toBeGreaterThan(0);

      const stream = await readStream(key);
      const seen = new Set<number>();
      const lastFirst = new Map<number, number>();
      let outOfOrder = 0;
      for (const e of stream) {
        if (seen.has(e.event_id)) continue;
        seen.add(e.event_id);
        if ((lastFirst.get(e.id) ?? 0) > e.event_id) outOfOrder++;
        lastFirst.set(e.id, e.event_id);
      }
      const duplicates = stream.length - seen.size;
      console.log(
        `[event-relay] ${N} events over ${ARTICLES} articles: recorded in ${recordMs} ms, relayed in ${relayMs} ms ` +
          `(relay a ${a.relayed} in ${a.passes} passes, relay b ${b.relayed} in ${b.passes} passes), ${duplicates} duplicates`,
      );
      expect([...seen].sort((x, y) => x - y)).toEqual(ids);
      expect(outOfOrder).toBe(0);
      expect(lastFirst.size).toBe(ARTICLES);
      expect(duplicates).toBe(0);
    } finally {
      await Promise.all(pools.map((p) => p.destroy()));
      for (const r of redises) r.disconnect();
    }
  });

  it('writes each event ready to send: the client JSON without recorded-only fields, its type and event_id beside it', async () => {
    const [id] = await record([ev('news.killed', 4242, 7)]);
    const key = streamKey('ready');
    await relayUntilEmpty(relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) }));
    const entries = (await deps.redis.xrange(key, '-', '+')) as [string, string[]][];
    expect(entries).toHaveLength(1);
    const f = entries[0][1];
    expect(f.filter((_, i) => i % 2 === 0)).toEqual(['e', 't', 'i']);
    expect(f[3]).toBe('news.killed');
    expect(f[5]).toBe(String(id));
    // `n` was recorded in the payload; clients never saw it and the stream no longer carries it.
    expect(JSON.parse(f[1])).toEqual({ type: 'news.killed', id: 4242, sponsored: null, event_id: id });
  });

  it("a batch holding an article's events 1 and 3 while another relay holds 2 sends only 1 (regression: claims interleave)", async () => {
    const key = streamKey('interleaved');
    const [e1, e2, e3] = await record([ev('news.submitted', 4242, 1), ev('news.approved', 4242, 2), ev('news.retracted', 4242, 3)], 1);
    const relay = relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) });
    // Another relay holds e2. Claims interleave like this for real: a relay's deferred rows come free
    // at its commit while the other relay still holds the rows after them.
    await deps.db.transaction().execute(async (other) => {
      await sql`SELECT event_id FROM event_outbox WHERE event_id = ${e2} FOR UPDATE`.execute(other);
      expect(await relayBatch(relay)).toEqual({ relayed: 1, deferred: 1, waiting: false });
    });
    await relayUntilEmpty(relay);
    expect((await readStream(key)).map((e) => e.event_id)).toEqual([e1, e2, e3]);
  });

  it('a relay that dies between its XADD and its commit: the next relay sends the events again, same event_id, nothing lost', async () => {
    const key = streamKey('crash');
    const events = Array.from({ length: 60 }, (_, i) => ev('news.submitted', 1 + (i % 6), i));
    const ids = await record(events, 20);

    // 1. The process dies after XADD: its transaction's connection is gone, PostgreSQL rolls it back.
    const doomedDb = createDb(deps.config.DATABASE_URL, { max: 1, applicationName: 'relay-doomed' });
    class DyingPublisher extends EventPublisher {
      override async publishJson(batch: readonly string[]): Promise<void> {
        await super.publishJson(batch);
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'relay-doomed' AND datname = current_database()`.execute(deps.db);
      }
    }
    try {
      await expect(relayBatch(relayDeps({ db: doomedDb, events: new DyingPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) }))).rejects.toThrow();
    } finally {
      await doomedDb.destroy();
    }
    expect((await outboxDepth(deps.db)).pending).toBe(60);
    expect((await readStream(key)).map((e) => e.event_id)).toEqual(ids);

    // 2. A failure after XADD inside the relay itself (a side effect throwing): rolled back as well.
    class ThrowingPublisher extends EventPublisher {
      override async publishJson(batch: readonly string[]): Promise<void> {
        await super.publishJson(batch);
        throw new Error('crash after XADD');
      }
    }
    await expect(relayBatch(relayDeps({ events: new ThrowingPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) }))).rejects.toThrow('crash after XADD');
    expect((await outboxDepth(deps.db)).pending).toBe(60);

    // 3. A healthy relay: everything reaches the stream (a third time), then leaves the outbox.
    const ok = await relayUntilEmpty(relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) }));
    expect(ok.relayed).toBe(60);
    expect((await outboxDepth(deps.db)).pending).toBe(0);
    const stream = await readStream(key);
    expect(stream).toHaveLength(180);
    const byId = new Map<number, string[]>();
    for (const e of stream) byId.set(e.event_id, [...(byId.get(e.event_id) ?? []), e.raw]);
    expect([...byId.keys()].sort((x, y) => x - y)).toEqual(ids);
    // A duplicate is the same event, byte for byte: clients de-duplicate by event_id.
    for (const copies of byId.values()) {
      expect(copies).toHaveLength(3);
      expect(new Set(copies).size).toBe(1);
    }
  });

  it('Redis down: the relay fails and leaves the outbox intact; a working relay then delivers everything', async () => {
    const key = streamKey('redis-down');
    const ids = await record(Array.from({ length: 25 }, (_, i) => ev('news.approved', 1 + (i % 5), i)));
    const deadRedis: Redis = createRedis(`redis://127.0.0.1:${await freePort()}`, 'command', 'dead-redis');
    try {
      const t0 = Date.now();
      await expect(relayBatch(relayDeps({ redis: deadRedis, events: new EventPublisher(deadRedis, key, deps.config.EVENT_STREAM_MAXLEN) }))).rejects.toThrow();
      // Fails fast (command connections do not queue forever), holding its claim only that long.
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      deadRedis.disconnect();
    }
    expect((await outboxDepth(deps.db)).pending).toBe(25);
    expect(await deps.redis.exists(key)).toBe(0);

    await relayUntilEmpty(relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) }));
    expect((await outboxDepth(deps.db)).pending).toBe(0);
    expect((await readStream(key)).map((e) => e.event_id)).toEqual(ids);
  });

  it('the feed cache generation moves once per relayed batch, not per event (and not for wire items)', async () => {
    const key = streamKey('feed-gen');
    const relay = relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) });

    await record(Array.from({ length: 40 }, (_, i) => ev('news.approved', 1 + (i % 4), i)));
    let gen = await feedGen();
    expect(await relayBatch(relay)).toEqual({ relayed: 40, deferred: 0, waiting: false });
    expect(await feedGen()).toBe(gen + 1);

    await record(Array.from({ length: 45 }, (_, i) => ev('news.killed', 1 + (i % 4), i)));
    gen = await feedGen();
    const r = await relayUntilEmpty(relay, { limit: 15 });
    expect(r).toMatchObject({ relayed: 45 });
    // Three full batches of 15 and an empty pass that ends the loop: three retirements.
    expect(await feedGen()).toBe(gen + 3);

    // Wire items are not on the article feed: a batch of news.tsunami only leaves the cache alone.
    await record(Array.from({ length: 10 }, (_, i) => ev('news.tsunami', null, 9000 + i)));
    gen = await feedGen();
    expect(await relayBatch(relay)).toEqual({ relayed: 10, deferred: 0, waiting: false });
    expect(await feedGen()).toBe(gen);

    // Internal events retire the cache but never reach the stream.
    const before = (await readStream(key)).length;
    await record([ev('article.edited', 1, 0), ev('article.edited', 2, 1)]);
    gen = await feedGen();
    expect(await relayBatch(relay)).toEqual({ relayed: 2, deferred: 0, waiting: false });
    expect(await feedGen()).toBe(gen + 1);
    expect(await readStream(key)).toHaveLength(before);
  });

  it('a pass reads from the log only the events it claims (regression: catching up on a backlog, each claim hashed the whole log)', async () => {
    const key = streamKey('claim-plan');
    const relay = relayDeps({ events: new EventPublisher(deps.redis, key, deps.config.EVENT_STREAM_MAXLEN) });
    // A backlog of a few thousand events, as after a Redis outage, with statistics taken meanwhile.
    const ids = await record(Array.from({ length: 3000 }, (_, i) => ev('news.approved', 1 + (i % 50), i)));
    await sql`ANALYZE event_log`.execute(deps.db);
    await sql`ANALYZE event_outbox`.execute(deps.db);

    const q = claimStatement(500, ids.at(-1)!).compile(deps.db);
    const plan = (await deps.db.executeQuery(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${q.sql}`, [...q.parameters]))).rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] };
    const logReads = nodes(plan['QUERY PLAN'][0].Plan).filter((n) => n['Relation Name'] === 'event_log');
    expect(await relayUntilEmpty(relay)).toMatchObject({ relayed: 3000 });
    expect((await readStream(key)).map((e) => e.event_id)).toEqual(ids);
    // One probe of the primary key per claimed event, never a scan of the log.
    expect(logReads.map((n) => n['Node Type'])).toEqual(['Index Scan']);
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe('the woken relay (outbox probe -> relay-events job)', () => {
  let relay: RunningRelay;
  let http: ReturnType<typeof request>;
  let user: Session;
  let editor: Session;

  beforeAll(async () => {
    relay = await startRelay(deps);
    http = request(createApp(deps));
    user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'writer' });
    editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'ed' });
  });
  afterAll(async () => {
    await relay.close();
    await http.close();
  });

  const streamIds = async () => new Set((await readStream(deps.events.streamKey)).map((e) => e.event_id));

  it('a commit reaches the stream within 1 s with no sweep; a rolled-back transaction never does and wakes nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const t0 = Date.now();
      const [id] = await recordEventsCommitted(deps.db, [ev('news.approved', 7, round)]);
      await expect.poll(async () => (await streamIds()).has(id), { timeout: 1000, interval: 10 }).toBe(true);
      console.log(`[event-relay] commit -> stream (woken relay) in ${Date.now() - t0} ms`);
    }
    await relayed(deps);

    const before = await deps.db
      .selectFrom('event_log')
      .select((eb) => eb.fn.max('event_id').as('top'))
      .executeTakeFirstOrThrow();
    const { probes, found } = relay.waker.counters;
    await expect(
      deps.db.transaction().execute(async (trx) => {
        await recordEvents(trx, [ev('news.approved', 8, 0), ev('news.killed', 9, 1)]);
        // Held open across several of the waker's probes: an uncommitted event is not waiting.
        await waitFor(() => relay.waker.counters.probes >= probes + 5, { timeout: 50 * RELAY_POLL_MS, what: '5 probes' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // Several more probes after the rollback: the rolled-back events are never found either.
    const probesAtRollback = relay.waker.counters.probes;
    await waitFor(() => relay.waker.counters.probes >= probesAtRollback + 5, { timeout: 50 * RELAY_POLL_MS, what: '5 probes' });
    expect(relay.waker.counters.probes).toBeGreaterThanOrEqual(probes + 5);
    expect(relay.waker.counters.found).toBe(found);
    const [after] = await recordEventsCommitted(deps.db, [ev('news.approved', 8, 2)]);
    await expect.poll(async () => (await streamIds()).has(after), { timeout: 1000, interval: 10 }).toBe(true);
    expect(relay.waker.counters.found).toBeGreaterThan(found);
    // The rolled-back transaction logged nothing; the ids it drew are a gap.
    const logged = await deps.db
      .selectFrom('event_log')
      .select(['event_id', 'payload'])
      .where('event_id', '>', Number(before.top ?? 0))
      .execute();
    expect(logged.map((r) => r.event_id)).toEqual([after]);
    expect(after).toBeGreaterThan(Number(before.top ?? 0));
    const onStream = (await readStream(deps.events.streamKey)).filter((e) => e.id === 9);
    expect(onStream).toEqual([]);
  });

  it("the waker's connection killed by the server: it reconnects, and the next commit still reaches the stream with no sweep", async () => {
    const { reconnects } = relay.waker.counters;
    const killed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM (
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'relay-waker' AND datname = current_database()) t`.execute(deps.db);
    expect(killed.rows[0].n).toBeGreaterThanOrEqual(1);
    await expect.poll(() => relay.waker.counters.reconnects, { timeout: 2000, interval: 10 }).toBeGreaterThan(reconnects);
    const [id] = await recordEventsCommitted(deps.db, [ev('news.approved', 10, 0)]);
    await expect.poll(async () => (await streamIds()).has(id), { timeout: 2000, interval: 10 }).toBe(true);
  });

  it("news.scheduled (via the API) leads to the delayed publish-scheduled job for the article's time", async () => {
    const s = await http.post('/api/v1/news/post', { url: `https://relay.example/scheduled-${Date.now()}`, headline: 'Scheduled by the relay' }, user.bearer);
    expect(s.status).toBe(201);
    const id = s.body.article_id as number;
    const publishAt = new Date(Date.now() + 3600_000);
    const r = await http.post(`/api/v1/news/${id}/schedule`, { publish_at: publishAt.toISOString() }, editor.bearer);
    expect(r.status).toBe(200);
    await relayed(deps);
    const delayed = await deps.queue.queue('publish-scheduled').getJobs(['delayed']);
    const mine = delayed.filter((j) => j.data.article_id === id);
    expect(mine.map((j) => j.id)).toEqual([`publish-scheduled-${id}-${publishAt.getTime()}`]);
    expect(mine[0].timestamp + mine[0].delay).toBeGreaterThan(publishAt.getTime() - 1000);
    expect(mine[0].timestamp + mine[0].delay).toBeLessThanOrEqual(publishAt.getTime() + 1000);
    const onStream = (await readStream(deps.events.streamKey)).filter((e) => e.id === id).map((e) => e.type);
    expect(onStream).toEqual(['news.submitted', 'news.scheduled']);
  });

  it("a yap (via the API) leads to the article's debounced hot-score job", async () => {
    const s = await http.post('/api/v1/news/post', { url: `https://relay.example/yapped-${Date.now()}`, headline: 'Talked about' }, user.bearer);
    const id = s.body.article_id as number;
    const y = await http.post(`/api/v1/news/${id}/post_yap`, { text: 'first!' }, user.bearer);
    expect(y.status).toBe(201);
    await relayed(deps);
    const jobs = await deps.queue.queue('hot-scores').getJobs(['delayed', 'waiting', 'prioritized']);
    const mine = jobs.filter((j) => (j.data.article_ids as number[] | undefined)?.includes(id));
    expect(mine).toHaveLength(1);
    expect(mine[0].id).toMatch(new RegExp(`^hot-scores-a${id}-w\\d+$`));
    expect(mine[0].data).toEqual({ article_ids: [id], all: false, window: expect.any(Number) });
    // article.yap_posted is internal: it never reaches the stream.
    expect((await readStream(deps.events.streamKey)).filter((e) => e.id === id).map((e) => e.type)).toEqual(['news.submitted']);
  });
});
