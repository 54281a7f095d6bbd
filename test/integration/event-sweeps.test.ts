/**
 * The clock's sweeps around the event log: page-title-sweep (re-enqueues lost or failed page-title
 * jobs of provisional submissions, bounded) and event-log-prune (retention of relayed events).
 */
import type { Worker } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDeps } from '../../jobs/define.js';
import { job as prune, PRUNE_BATCH } from '../../jobs/event-log-prune.js';
import { job as sweep, MAX_SWEEPS } from '../../jobs/page-title-sweep.js';
import { internalEvent, markRelayed, prunedThrough, recordEventsCommitted } from '../../src/platform/events/log.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';

let deps: TestDeps;
let pages: PageServer;
let workers: Worker[] = [];

beforeAll(async () => {
  deps = await createTestDeps();
  pages = await startPageServer();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await pages.close();
  await deps.close();
});

const jobDeps = (): JobDeps => ({ config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer });
const ctx = { attempt: 1, jobId: 'test' };
const runSweep = async () => (await sweep.run({}, jobDeps(), ctx)).enqueued.sort((a, b) => a - b);

let n = 0;
/** A submission as POST /news/post leaves it when the page title has not arrived, created `ageMin` minutes ago. */
async function provisional(ageMin: number, extra: { page_title_sweeps?: number; page_title_failure?: string; headline_source?: 'provisional' | 'page_title' | 'supplied' } = {}) {
  const url = `${pages.base}/article?title=${encodeURIComponent(`Swept title ${++n}`)}`;
  const row = await deps.db
    .insertInto('articles')
    .values({
      slug: `127-0-0-1-article-${n}`,
      headline: '127.0.0.1/article',
      headline_source: 'provisional',
      url,
      normalized_url: url,
      source: '127.0.0.1',
      status: 'submitted',
      origin: 'manual',
      created_at: sql<Date>`now() - make_interval(secs => ${ageMin * 60})`,
      ...extra,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

describe('page-title-sweep', () => {
  it('re-enqueues a lost page-title job, and a real page-title worker then fills the headline in', async () => {
    const id = await provisional(3);
    const titles = deps.queue.queue('page-title');
    expect(await titles.getJob(`page-title-${id}`)).toBeUndefined(); // the original job was lost

    expect(await runSweep()).toEqual([id]);
    const job = await titles.getJob(`page-title-${id}-sweep-1`);
    expect(job?.data).toEqual({ article_id: id, sweep: 1 });
    expect((await deps.db.selectFrom('articles').select('page_title_sweeps').where('id', '=', id).executeTakeFirstOrThrow()).page_title_sweeps).toBe(1);
    // Counted: the next run leaves it alone (its second sweep waits until it is 4 minutes old).
    expect(await runSweep()).toEqual([]);

    workers = startWorkers(jobDeps(), { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 5000, concurrencyCap: 2, only: ['page-title'] });
    await expect
      .poll(async () => deps.db.selectFrom('articles').select(['headline', 'headline_source']).where('id', '=', id).executeTakeFirstOrThrow(), { timeout: 8000, interval: 50 })
      .toEqual({ headline: `Swept title ${n}`, headline_source: 'page_title' });
    // The page title is recorded for the relay (article.edited retires the feed cache).
    const events = await deps.db.selectFrom('event_log').select(['type', 'article_id']).where('article_id', '=', id).execute();
    expect(events).toEqual([{ type: 'article.edited', article_id: id }]);
    // Filled in: never swept again.
    await sql`UPDATE articles SET created_at = now() - interval '10 minutes' WHERE id = ${id}`.execute(deps.db);
    expect(await runSweep()).toEqual([]);
  });

  it('is bounded: not before 2 minutes, the n-th sweep at 2^n minutes, at most MAX_SWEEPS times, only in the first 24 hours, never after a permanent failure', async () => {
    expect(MAX_SWEEPS).toBe(3);
    const skipped = [
      await provisional(1.5), // too young: its own job may still be running
      await provisional(3, { page_title_failure: 'no_title' }), // the page has no usable title
      await provisional(30, { page_title_sweeps: 3 }), // swept three times already
      await provisional(25 * 60), // older than 24 hours
      await provisional(3, { page_title_sweeps: 1 }), // second sweep: not before 4 minutes
      await provisional(7, { page_title_sweeps: 2 }), // third sweep: not before 8 minutes
      await provisional(10, { headline_source: 'supplied' }), // has its headline
    ];
    const second = await provisional(5, { page_title_sweeps: 1 });
    const third = await provisional(9, { page_title_sweeps: 2 });
    const first = await provisional(2.5);
    const due = [second, third, first].sort((a, b) => a - b);

    expect(await runSweep()).toEqual(due);
    const titles = deps.queue.queue('page-title');
    expect((await titles.getJob(`page-title-${first}-sweep-1`))?.data).toEqual({ article_id: first, sweep: 1 });
    expect((await titles.getJob(`page-title-${second}-sweep-2`))?.data).toEqual({ article_id: second, sweep: 2 });
    expect((await titles.getJob(`page-title-${third}-sweep-3`))?.data).toEqual({ article_id: third, sweep: 3 });
    for (const id of skipped) {
      const jobs = await Promise.all([1, 2, 3, 4].map((k) => titles.getJob(`page-title-${id}-sweep-${k}`)));
      expect(jobs.filter(Boolean), `article ${id}`).toEqual([]);
    }
    const counts = await deps.db.selectFrom('articles').select(['id', 'page_title_sweeps']).where('id', 'in', skipped).orderBy('id').execute();
    expect(counts.map((c) => c.page_title_sweeps)).toEqual([0, 0, 3, 0, 1, 2, 0]);
    // Nothing is due again at once (each was counted in the same statement that picked it).
    expect(await runSweep()).toEqual([]);
    // The worker fills the swept ones in (and then has nothing left to do).
    await expect
      .poll(async () => (await deps.db.selectFrom('articles').select('id').where('id', 'in', due).where('headline_source', '=', 'page_title').execute()).length, {
        timeout: 8000,
        interval: 50,
      })
      .toBe(due.length);
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
  });
});

describe('event-log-prune', () => {
  it('deletes relayed events older than EVENT_LOG_RETENTION_DAYS in batches, keeps unrelayed ones, raises pruned_through', async () => {
    expect(deps.config.EVENT_LOG_RETENTION_DAYS).toBe(30);
    // Drain what the sweep tests recorded (as the relay would): only what is planted below stays in the outbox.
    const pending = await deps.db.selectFrom('event_outbox').select('event_id').execute();
    await deps.db.transaction().execute((trx) =>
      markRelayed(
        trx,
        pending.map((p) => Number(p.event_id)),
      ),
    );

    // Old events cannot be made by ageing recorded ones (event_log is append-only): plant them. Ids
    // and times rise together, as in production: 12,000 events 40 to 31 days old, then 50 events 29
    // days old (inside the retention), then the events of today.
    const OLD = 2 * PRUNE_BATCH + 2000;
    await sql`
      INSERT INTO event_log (event_id, type, article_id, visibility, payload, recorded_at)
      SELECT nextval('event_log_event_id_seq'), 'news.approved', 1 + g % 50, 'public',
             json_build_object('type', 'news.approved', 'id', 1 + g % 50),
             now() - interval '40 days' + g * (interval '9 days' / ${OLD})
      FROM generate_series(0, ${OLD - 1}) g`.execute(deps.db);
    await sql`
      INSERT INTO event_log (event_id, type, article_id, visibility, payload, recorded_at)
      SELECT nextval('event_log_event_id_seq'), 'news.killed', 7, 'staff', '{"type":"news.killed","id":7}', now() - interval '29 days' + g * interval '1 minute'
      FROM generate_series(1, 50) g`.execute(deps.db);
    const oldIds = (await sql<{ event_id: number }>`SELECT event_id FROM event_log WHERE recorded_at < now() - interval '30 days' ORDER BY event_id`.execute(deps.db)).rows.map(
      (r) => Number(r.event_id),
    );
    expect(oldIds).toHaveLength(OLD);
    // Some old ones were never relayed (Redis was down for a month?): they stay.
    const stuck = oldIds.filter((_, i) => i % 1000 === 999);
    await sql`INSERT INTO event_outbox (event_id, article_id) SELECT event_id, article_id FROM event_log WHERE event_id = ANY(${stuck}::bigint[])`.execute(deps.db);
    // Recent events, relayed and not.
    const recent = await recordEventsCommitted(
      deps.db,
      Array.from({ length: 10 }, (_, i) => internalEvent('article.edited', 100 + i)),
    );
    await deps.db.transaction().execute((trx) => markRelayed(trx, recent.slice(0, 5)));
    const totalBefore = Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_log`.execute(deps.db)).rows[0].n);

    // Each DELETE statement, with its transaction and size.
    await sql`CREATE TABLE prune_audit (id serial PRIMARY KEY, txid xid8 NOT NULL DEFAULT pg_current_xact_id(), n integer NOT NULL, top bigint)`.execute(deps.db);
    await sql`
      CREATE FUNCTION prune_audit() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO prune_audit (n, top) SELECT count(*), max(event_id) FROM gone;
        RETURN NULL;
      END
      $fn$`.execute(deps.db);
    await sql`CREATE TRIGGER prune_audit AFTER DELETE ON event_log REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION prune_audit()`.execute(deps.db);

    expect(await prunedThrough(deps.db)).toBe(0);
    const t0 = Date.now();
    const r = await prune.run({}, jobDeps(), ctx);
    const ms = Date.now() - t0;
    const deletable = oldIds.filter((id) => !stuck.includes(id));
    expect(r.deleted).toBe(deletable.length);
    console.log(`[event-sweeps] pruned ${r.deleted} events in ${ms} ms`);

    const statements = (await sql<{ txid: string; n: number; top: number }>`SELECT txid::text AS txid, n, top FROM prune_audit ORDER BY id`.execute(deps.db)).rows;
    // Batches of PRUNE_BATCH, oldest first, each its own transaction; the short one ends the run.
    expect(statements.map((s) => s.n)).toEqual([PRUNE_BATCH, PRUNE_BATCH, deletable.length - 2 * PRUNE_BATCH]);
    expect(new Set(statements.map((s) => s.txid)).size).toBe(3);
    expect(statements.map((s) => Number(s.top))).toEqual([deletable[PRUNE_BATCH - 1], deletable[2 * PRUNE_BATCH - 1], deletable.at(-1)]);

    const left = (await sql<{ event_id: number }>`SELECT event_id FROM event_log ORDER BY event_id`.execute(deps.db)).rows.map((x) => Number(x.event_id));
    expect(left).toHaveLength(totalBefore - deletable.length);
    for (const id of stuck) expect(left).toContain(id);
    for (const id of recent) expect(left).toContain(id);
    expect(left.filter((id) => id >= oldIds[0] && id <= oldIds.at(-1)!)).toEqual(stuck);
    expect(await prunedThrough(deps.db)).toBe(deletable.at(-1));

    // Nothing more to do: a second run deletes nothing and leaves pruned_through alone.
    expect((await prune.run({}, jobDeps(), ctx)).deleted).toBe(0);
    expect(await prunedThrough(deps.db)).toBe(deletable.at(-1));

    // Once relayed, the stuck ones go too, and pruned_through never moves down.
    await deps.db.transaction().execute((trx) => markRelayed(trx, stuck));
    expect((await prune.run({}, jobDeps(), ctx)).deleted).toBe(stuck.length);
    expect(await prunedThrough(deps.db)).toBe(Math.max(deletable.at(-1)!, stuck.at(-1)!));
  });
});
