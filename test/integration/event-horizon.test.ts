/**
 * The event horizon (migration 20261128T090000_event_log_insert_time_ids, eventHorizon in
 * src/platform/events/log.ts): event ids are drawn when the event is written, so they can commit out
 * of order; the relay and GET /api/v1/events/ read only up to the horizon, so that nobody skips an
 * event that commits late. Real PostgreSQL and Redis.
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventPublisher, type AnyEventType } from '../../src/platform/events/events.js';
import { eventHorizon, listEvents, recordEvents, recordEventsCommitted, type EventInput } from '../../src/platform/events/log.js';
import { relayBatch, relayUntilEmpty, type RelayDeps } from '../../src/relay/relay.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(async () => {
  await deps.close();
});

/** The shared lock a writer holds from before it draws an id (event_log_draw()). */
const EVENT_WRITER_KEY = '4995617886660722687';

const ev = (type: AnyEventType, articleId: number, n: number): EventInput => ({ type, articleId, payload: { type, id: articleId, n } });

function relayTo(stream: string): RelayDeps {
  return {
    config: deps.config,
    db: deps.db,
    redis: deps.redis,
    events: new EventPublisher(deps.redis, `${deps.config.QUEUE_PREFIX}:events:${stream}`, deps.config.EVENT_STREAM_MAXLEN),
    log: deps.log,
    enqueue: deps.queue.enqueuer,
  };
}

async function streamIds(stream: string): Promise<number[]> {
  const entries = (await deps.redis.xrange(`${deps.config.QUEUE_PREFIX}:events:${stream}`, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => (JSON.parse(f[1]) as { event_id: number }).event_id);
}

const listed = async (after: number) => (await listEvents(deps.db, { after, limit: 500, types: ['news.approved'], visibilities: ['public'] })).rows.map((e) => e.event_id);

/**
 * A transaction that runs `work` and stays open until `finish` is called (commit, or roll back);
 * resolves once `work` has run.
 */
async function holdOpen(work: (trx: Transaction<Database>) => Promise<unknown>) {
  let finish!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (finish = resolve));
  let worked!: () => void;
  const hasWorked = new Promise<void>((resolve) => (worked = resolve));
  const done = deps.db
    .transaction()
    .execute(async (trx) => {
      await work(trx);
      worked();
      if (!(await decided)) throw new Error('roll back');
    })
    .catch((err: Error) => {
      if (err.message !== 'roll back') throw err;
    });
  await hasWorked;
  return { finish, done };
}

/** A transaction that records one event and stays open. */
const openWriter = (articleId: number) => holdOpen((trx) => recordEvents(trx, [ev('news.approved', articleId, 0)]));

const idOf = async (articleId: number) =>
  Number((await sql<{ id: string }>`SELECT max(event_id) AS id FROM event_log WHERE article_id = ${articleId}`.execute(deps.db)).rows[0].id);

describe('event horizon', () => {
  it('an event that commits after a later id is neither relayed nor listed before it; both come in id order once it commits', async () => {
    const relay = relayTo('late');
    await relayUntilEmpty(relayTo('leftovers'));
    const seenBefore = (await eventHorizon(deps.db)).horizon;

    const slow = await openWriter(9001);
    const [later] = await recordEventsCommitted(deps.db, [ev('news.approved', 9002, 1)]);

    const h = await eventHorizon(deps.db);
    expect(h.top).toBeGreaterThanOrEqual(later);
    expect(h.horizon).toBeLessThan(later);
    // The later event is committed and in the outbox, but a pass leaves it: it waits for the writer below it.
    expect(await relayBatch(relay)).toEqual({ relayed: 0, deferred: 0, waiting: true });
    expect(await streamIds('late')).toEqual([]);
    expect(await listed(seenBefore)).toEqual([]);

    slow.finish(true);
    await slow.done;
    const early = await idOf(9001);
    expect(early).toBeLessThan(later);
    // A poller that had read everything up to seenBefore gets both, in order: nothing skipped.
    expect(await listed(seenBefore)).toEqual([early, later]);
    await relayUntilEmpty(relay);
    expect(await streamIds('late')).toEqual([early, later]);
  });

  it('a writer that rolls back below committed events: they are relayed and listed once it is gone', async () => {
    const relay = relayTo('rolled-back');
    await relayUntilEmpty(relayTo('leftovers'));
    const seenBefore = (await eventHorizon(deps.db)).horizon;

    const doomed = await openWriter(9003);
    const [kept] = await recordEventsCommitted(deps.db, [ev('news.approved', 9004, 1)]);
    expect((await relayUntilEmpty(relay, { budgetMs: 2000 })).relayed).toBe(0);

    doomed.finish(false);
    await doomed.done;
    expect(await idOf(9003)).toBe(0);
    expect(await listed(seenBefore)).toEqual([kept]);
    expect((await relayUntilEmpty(relay)).relayed).toBe(1);
    expect(await streamIds('rolled-back')).toEqual([kept]);
  });

  it('a writer caught between drawing its id and announcing it keeps the horizon where it was, never past it', async () => {
    await relayUntilEmpty(relayTo('leftovers'));
    const before = (await eventHorizon(deps.db)).horizon;
    // As a writer holds it between its draw and its id's own lock: the writer key alone.
    const holder = await holdOpen((trx) => sql`SELECT pg_advisory_xact_lock_shared(${EVENT_WRITER_KEY}::bigint)`.execute(trx));
    const [after] = await recordEventsCommitted(deps.db, [ev('news.approved', 9005, 1)]);
    const h = await eventHorizon(deps.db);
    expect(h.top).toBeGreaterThanOrEqual(after);
    expect(h.horizon).toBe(before);
    expect(await listed(before)).toEqual([]);

    holder.finish(true);
    await holder.done;
    expect((await eventHorizon(deps.db)).horizon).toBeGreaterThanOrEqual(after);
    expect(await listed(before)).toEqual([after]);
  });

  it('writers do not wait for each other: two open event-writing transactions both record before either commits', async () => {
    const a = await openWriter(9006);
    // With ids drawn under one exclusive lock this second writer would block until the first ended.
    const b = await openWriter(9007);
    const h = await eventHorizon(deps.db);
    expect(h.horizon).toBeLessThan(h.top);
    b.finish(true);
    a.finish(true);
    await Promise.all([a.done, b.done]);
    const ids = [await idOf(9006), await idOf(9007)];
    expect(ids[0]).toBeLessThan(ids[1]);
    expect((await eventHorizon(deps.db)).horizon).toBeGreaterThanOrEqual(ids[1]);
  });

  it('a transaction recording 20,000 events announces itself once: two advisory locks, not one per event', async () => {
    await relayUntilEmpty(relayTo('leftovers'));
    // PostgreSQL's shared lock table is sized for max_locks_per_transaction (64) per connection:
    // one lock per event filled it (50,000 events in one transaction failed with "out of shared memory").
    const N = 20_000;
    const events = Array.from({ length: N }, (_, i) => ev('news.approved', 9100 + (i % 7), i));
    const bulk = await holdOpen((trx) => recordEvents(trx, events));
    const held = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid IN (1163132927, 1163132928)`.execute(deps.db);
    // The writer key and the lock on its first id.
    expect(held.rows[0].n).toBe(2);
    const h = await eventHorizon(deps.db);
    expect(h.top - h.horizon).toBeGreaterThanOrEqual(N);

    bulk.finish(true);
    await bulk.done;
    const r = await sql<{ n: number; lo: string; hi: string }>`
      SELECT count(*)::int AS n, min(event_id) AS lo, max(event_id) AS hi FROM event_log WHERE article_id BETWEEN 9100 AND 9106`.execute(deps.db);
    expect(r.rows[0].n).toBe(N);
    expect(Number(r.rows[0].hi) - Number(r.rows[0].lo)).toBe(N - 1);
    expect((await eventHorizon(deps.db)).horizon).toBeGreaterThanOrEqual(Number(r.rows[0].hi));
    expect((await relayUntilEmpty(relayTo('bulk'))).relayed).toBe(N);
  });

  it('a savepoint rolled back takes its announcement with it: the next event of the transaction announces again', async () => {
    await relayUntilEmpty(relayTo('leftovers'));
    const writer = await holdOpen(async (trx) => {
      await sql`SAVEPOINT s`.execute(trx);
      await recordEvents(trx, [ev('news.approved', 9200, 0)]);
      await sql`ROLLBACK TO SAVEPOINT s`.execute(trx);
      await recordEvents(trx, [ev('news.approved', 9201, 1)]);
    });
    const [after] = await recordEventsCommitted(deps.db, [ev('news.approved', 9202, 2)]);
    // The open transaction's surviving event is below `after`, and holds the horizon under it.
    expect((await eventHorizon(deps.db)).horizon).toBeLessThan(after);
    writer.finish(true);
    await writer.done;
    expect(await idOf(9200)).toBe(0);
    const kept = await idOf(9201);
    expect(kept).toBeLessThan(after);
    expect((await eventHorizon(deps.db)).horizon).toBeGreaterThanOrEqual(after);
  });

  it('readers share horizon reads under load, and each still sees an event committed before it asked', async () => {
    // Pollers keep a horizon read in flight at all times, so every listing below joins a shared one.
    let polling = true;
    let polls = 0;
    const pollers = Array.from({ length: 8 }, async () => {
      while (polling) {
        await listed(0);
        polls++;
      }
    });
    try {
      for (let round = 0; round < 100; round++) {
        // The id is read inside the transaction, so the listings start right after the COMMIT.
        const id = await deps.db.transaction().execute(async (trx) => {
          await recordEvents(trx, [ev('news.approved', 9300, round)]);
          return Number((await sql<{ id: string }>`SELECT currval('event_log_event_id_seq')::text AS id`.execute(trx)).rows[0].id);
        });
        const seen = await Promise.all(Array.from({ length: 5 }, () => listed(id - 1)));
        for (const ids of seen) expect(ids).toContain(id);
      }
    } finally {
      polling = false;
      await Promise.all(pollers);
    }
    expect(polls).toBeGreaterThan(30);
  });
});
