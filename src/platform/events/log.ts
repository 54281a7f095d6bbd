/**
 * The durable event log (db/migrations/20261124T100000_event_log.ts): recording events inside the
 * caller's transaction, the relay's claim of unrelayed events, the pull endpoint's reads, retention.
 *
 * recordEvents is the one function every write path calls to report a change. Invariants:
 *  - It runs inside the transaction of the change (it refuses a plain connection), so the event
 *    commits with the change or not at all.
 *  - Ids are drawn when the event is written (event_log_draw(), migration
 *    20261128T090000_event_log_insert_time_ids): writers never wait for each other, and ids may
 *    commit out of order. Readers (the relay's claim, GET /api/v1/events/) therefore read only up
 *    to eventHorizon(): every id at or below it is final (committed or rolled back), so a poller
 *    reading `event_id > after` never skips an event that committed late.
 *  - Events of one article are in order: the change's UPDATE holds the article's row lock until its
 *    commit, so two transactions that change one article draw their ids in the order they commit.
 *  - attrs (what subscriptions filter on) are the article's tags and tokens as the recording
 *    statement sees them (after the change's own UPDATE).
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Db } from '../db.js';
import { nextFlight, type NextFlight } from '../single-flight.js';
import { visibilityOf, type AnyEventType, type InternalEventType, type NewsEvent, type Visibility } from './events.js';

export interface EventInput {
  type: AnyEventType;
  /** The article the event is about (ordering key of the relay); null for wire items and feed-wide events. */
  articleId: number | null;
  /** The event object clients receive (without event_id, which is added here). */
  payload: Record<string, unknown>;
}

/** A client-visible lifecycle event. news.tsunami is about a wire item: its `id` is not an article id. */
export function newsEvent(e: NewsEvent): EventInput {
  return { type: e.type, articleId: e.type === 'news.tsunami' ? null : e.id, payload: e as unknown as Record<string, unknown> };
}

/** An internal event: the relay performs its side effects; clients never see it. */
export function internalEvent(type: InternalEventType, articleId: number | null, data: Record<string, unknown> = {}): EventInput {
  return { type, articleId, payload: { type, article_id: articleId, ...data } };
}

/**
 * Record events in the caller's transaction: one statement writes their log rows (ids drawn in the
 * order given here) and their outbox rows (event_log_record1() / event_log_record(), migration
 * 20261129T100000_event_log_record). A rolled-back transaction records nothing (its drawn ids are
 * a gap).
 */
export async function recordEvents(trx: Transaction<Database>, events: readonly EventInput[]): Promise<void> {
  if (events.length === 0) return;
  if (!trx.isTransaction) throw new Error('recordEvents must run inside the transaction of the change it reports');
  await sql`SELECT ${logRecord(events)}`.execute(trx);
}

/** The attrs of an article its own statement inserts (the recording statement cannot read that row). */
interface NewArticleAttrs {
  tags: readonly string[];
  token_addresses: readonly string[];
  token_symbols: readonly string[];
}

/**
 * recordEvents as the source of the change's own `INSERT ... SELECT`, for hot write paths that know
 * their events before the statement runs (one round trip less than a separate recordEvents):
 *
 *   trx.insertInto('articles').columns([...]).expression(trx.selectFrom(recordedWith(events, attrs)).select([...]))
 *
 * The recording function yields one row and runs exactly once, so the events are written with the
 * change, or not at all when the statement fails. `attrs` are those of the article the statement
 * inserts. Must run inside the transaction of the change.
 */
export function recordedWith(events: readonly EventInput[], attrs: NewArticleAttrs) {
  return logRecord(events, attrs).as('recorded');
}

function logRecord(events: readonly EventInput[], attrs?: NewArticleAttrs) {
  const given = attrs ? JSON.stringify(attrs) : null;
  const { types, articleIds, visibilities, payloads } = eventColumns(events);
  if (events.length === 1) return sql`event_log_record1(${types[0]}::text, ${articleIds[0]}::int, ${visibilities[0]}::text, ${payloads[0]}::text, ${given}::json)`;
  return sql`event_log_record(${types}::text[], ${articleIds}::int[], ${visibilities}::text[], ${payloads}::text[], ${given}::json)`;
}

function eventColumns(events: readonly EventInput[]) {
  return {
    types: events.map((e) => e.type),
    articleIds: events.map((e) => e.articleId),
    visibilities: events.map((e) => visibilityOf(e.type)),
    payloads: events.map((e) => {
      const { event_id: _drop, ...rest } = e.payload as { event_id?: unknown };
      return JSON.stringify(rest);
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Horizon

/** The last horizon each pool computed: the answer while a writer is between drawing and announcing its id. */
const lastHorizon = new WeakMap<Db, number>();

/**
 * The event horizon: the highest event id at or below which every drawn id is final (committed or
 * rolled back), and the last id drawn (`top`; above the horizon while a writer is in flight). Read
 * events at or below it, in a statement that starts after this returns.
 *
 * Never lower than a horizon computed before (see event_log_horizon() in the migration). When a
 * writer is caught between drawing its id and announcing it (microseconds, or longer if it is
 * descheduled), this retries twice, 1 ms apart, then answers this pool's previous horizon, which
 * is still safe: such a writer's id is above every horizon computed before.
 */
export async function eventHorizon(db: Db): Promise<{ horizon: number; top: number }> {
  for (let attempt = 0; ; attempt++) {
    const r = await sql<{ top: string; first_pending: string | null; unknown: number }>`SELECT top, first_pending, unknown FROM event_log_horizon()`.execute(db);
    const { top, first_pending, unknown } = r.rows[0];
    if (unknown === 0) {
      const horizon = first_pending === null ? Number(top) : Math.min(Number(top), Number(first_pending) - 1);
      lastHorizon.set(db, horizon);
      return { horizon, top: Number(top) };
    }
    if (attempt >= 2) return { horizon: Math.min(lastHorizon.get(db) ?? 0, Number(top)), top: Number(top) };
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Record events in a transaction of their own and return their ids once committed (tests, benches,
 * drills: the write paths record inside the transaction of their change with recordEvents).
 */
export async function recordEventsCommitted(db: Db, events: readonly EventInput[]): Promise<number[]> {
  if (events.length === 0) return [];
  const txid = await db.transaction().execute(async (trx) => {
    await recordEvents(trx, events);
    return (await sql<{ txid: string }>`SELECT pg_current_xact_id()::text AS txid`.execute(trx)).rows[0].txid;
  });
  const r = await sql<{ event_id: number }>`SELECT event_id FROM event_log WHERE txid = ${txid}::xid8 ORDER BY event_id`.execute(db);
  return r.rows.map((x) => Number(x.event_id));
}

// ---------------------------------------------------------------------------------------------
// Relay

export interface OutboxRow {
  event_id: number;
  article_id: number | null;
  type: AnyEventType;
  visibility: Visibility;
  /** The event as JSON text, exactly as clients receive it. */
  payload: string;
  /** JSON text of {tags, token_addresses, token_symbols} at the event's commit (subscription filters), or null. */
  attrs: string | null;
}

/** claimOutbox's statement (exported for the plan test). */
export const claimStatement = (limit: number, horizon: number) => sql<OutboxRow>`
    SELECT o.event_id, o.article_id, l.type, l.visibility, l.payload::text AS payload, l.attrs::text AS attrs
    FROM (SELECT event_id, article_id FROM event_outbox WHERE event_id <= ${horizon} ORDER BY event_id LIMIT ${limit} FOR UPDATE SKIP LOCKED) o
    CROSS JOIN LATERAL (SELECT type, visibility, payload, attrs FROM event_log WHERE event_id = o.event_id LIMIT 1) l
    ORDER BY o.event_id`;

/**
 * Lock up to `limit` unrelayed events at or below the horizon (eventHorizon), oldest first,
 * skipping those another relay holds, and drop from them each article's events that come after an
 * event of that article this batch does not hold (another relay holds it, or released it after
 * this scan): they wait for it, so one article's events reach the stream in order. Returns the claimed rows (in event_id order) and how many were
 * deferred.
 *
 * Why "after any event not held" and not "the article's oldest pending event is not mine": claims
 * interleave (a relay's deferred rows are released at its commit, behind rows another relay still
 * holds), so a batch can hold an article's events 250 and 470 while another relay holds its 300.
 * Relaying 470 then would put it on the stream before 300; 250 alone is safe.
 *
 * The log is read row by row through its primary key (the LATERAL subquery with LIMIT cannot be
 * flattened into a join): planned as a plain join, once the outbox's statistics had seen a backlog
 * the planner hashed the whole log on every pass, milliseconds that grew with the log.
 */
export async function claimOutbox(trx: Transaction<Database>, limit: number, horizon: number): Promise<{ rows: OutboxRow[]; deferred: number }> {
  const r = await claimStatement(limit, horizon).execute(trx);
  const rows = r.rows.map((x) => ({ ...x, event_id: Number(x.event_id) }));
  const lastMine = new Map<number, number>();
  for (const row of rows) if (row.article_id !== null) lastMine.set(row.article_id, row.event_id);
  if (lastMine.size === 0) return { rows, deferred: 0 };
  // The oldest pending event of each of these articles, below this batch's last one, that this batch does not hold.
  const foreign = await sql<{ article_id: number; first: number }>`
    SELECT o.article_id, min(o.event_id) AS first
    FROM event_outbox o
    JOIN unnest(${[...lastMine.keys()]}::int[], ${[...lastMine.values()]}::bigint[]) AS m(article_id, last_mine)
      ON o.article_id = m.article_id AND o.event_id < m.last_mine
    WHERE o.event_id <> ALL(${rows.map((x) => x.event_id)}::bigint[])
    GROUP BY o.article_id`.execute(trx);
  if (foreign.rows.length === 0) return { rows, deferred: 0 };
  const waitFor = new Map(foreign.rows.map((o) => [o.article_id, Number(o.first)]));
  const mine = rows.filter((x) => x.article_id === null || x.event_id < (waitFor.get(x.article_id) ?? Infinity));
  return { rows: mine, deferred: rows.length - mine.length };
}

/** Whether committed events wait above the horizon (behind a writer still in flight). */
export async function waitingAbove(trx: Transaction<Database>, horizon: number): Promise<boolean> {
  const r = await sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM event_outbox WHERE event_id > ${horizon}) AS any`.execute(trx);
  return r.rows[0].any;
}

/** The events are relayed: they leave the outbox (the log keeps them). */
export async function markRelayed(trx: Transaction<Database>, eventIds: readonly number[]): Promise<void> {
  if (eventIds.length === 0) return;
  await sql`DELETE FROM event_outbox WHERE event_id = ANY(${eventIds as number[]}::bigint[])`.execute(trx);
}

export async function outboxDepth(db: Db): Promise<{ pending: number; oldestAgeS: number | null }> {
  const r = await sql<{ n: number; oldest: Date | null }>`
    SELECT count(*)::int AS n, (SELECT recorded_at FROM event_log WHERE event_id = min(o.event_id)) AS oldest
    FROM event_outbox o`.execute(db);
  const row = r.rows[0];
  return { pending: Number(row?.n ?? 0), oldestAgeS: row?.oldest ? Math.max(0, (Date.now() - row.oldest.getTime()) / 1000) : null };
}

// ---------------------------------------------------------------------------------------------
// Pull endpoint

interface LoggedEventRow {
  event_id: number;
  /** JSON text of the event object, event_id included. */
  payload: string;
}

/** Per pool: the horizon read running, and the one that will start when it ends. */
const horizonReads = new WeakMap<Db, NextFlight<{ horizon: number; top: number }>>();

/**
 * eventHorizon for GET /api/v1/events/, at most one read in flight per pool (nextFlight): each
 * caller's horizon is still computed after it arrived (a client that committed an event and then
 * asks sees it, as with its own read), while under polling load the lock table is read once per
 * round trip instead of once per request.
 */
function sharedEventHorizon(db: Db): Promise<{ horizon: number; top: number }> {
  let state = horizonReads.get(db);
  if (!state) horizonReads.set(db, (state = { running: null, next: null }));
  return nextFlight(state, () => eventHorizon(db));
}

/**
 * Client-visible events after `after` and at or below the horizon, ascending, at most `limit`, of
 * the given types and visibilities, and the highest id retention has deleted, read in the same
 * statement (one snapshot: a page that lost events to a prune always sees the raised value). Reads
 * the log only (works while Redis is down).
 */
export async function listEvents(
  db: Db,
  q: { after: number; limit: number; types: readonly string[]; visibilities: readonly Visibility[]; assets?: readonly string[] },
): Promise<{ rows: LoggedEventRow[]; prunedThrough: number }> {
  // Any of the asset ids among the event's attrs.assets (the article's asset tags when it was recorded).
  const assets = q.assets?.length ? sql`AND (attrs::jsonb -> 'assets') ?| ${q.assets as string[]}::text[]` : sql``;
  const { horizon } = await sharedEventHorizon(db);
  const r = await sql<{ event_id: number | null; payload: string | null; pruned_through: string | null }>`
    SELECT e.event_id, e.payload, (SELECT pruned_through FROM event_log_state) AS pruned_through
    FROM (SELECT 1) one
    LEFT JOIN (
      SELECT event_id, payload::text AS payload FROM event_log
      WHERE event_id > ${q.after} AND event_id <= ${horizon}
        AND type = ANY(${q.types as string[]}::text[])
        AND visibility = ANY(${q.visibilities as string[]}::text[])
        ${assets}
      ORDER BY event_id
      LIMIT ${q.limit}
    ) e ON true
    ORDER BY e.event_id`.execute(db);
  return {
    rows: r.rows.filter((x) => x.event_id !== null).map((x) => ({ event_id: Number(x.event_id), payload: x.payload! })),
    prunedThrough: Number(r.rows[0]?.pruned_through ?? 0),
  };
}

/** The highest event id retention has deleted (0 when nothing was ever pruned). */
export async function prunedThrough(db: Db): Promise<number> {
  const r = await db.selectFrom('event_log_state').select('pruned_through').executeTakeFirst();
  return Number(r?.pruned_through ?? 0);
}

/** The oldest event id still in the log, or null when it is empty. */
export async function oldestEventId(db: Db): Promise<number | null> {
  const r = await sql<{ id: number | null }>`SELECT min(event_id) AS id FROM event_log`.execute(db);
  return r.rows[0]?.id == null ? null : Number(r.rows[0].id);
}

// ---------------------------------------------------------------------------------------------
// Retention

/**
 * Delete up to `batch` events recorded before `cutoff` that are already relayed, oldest first, in
 * one short transaction, and raise pruned_through to the highest id deleted. Returns how many went.
 */
export async function pruneEvents(db: Db, cutoff: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const r = await sql<{ n: number; top: number | null }>`
      WITH doomed AS (
        SELECT l.event_id FROM event_log l
        WHERE l.recorded_at < ${cutoff}
          AND NOT EXISTS (SELECT 1 FROM event_outbox o WHERE o.event_id = l.event_id)
        ORDER BY l.event_id
        LIMIT ${batch}
      ), gone AS (
        DELETE FROM event_log l USING doomed d WHERE l.event_id = d.event_id RETURNING l.event_id
      )
      SELECT count(*)::int AS n, max(event_id) AS top FROM gone`.execute(trx);
    const { n, top } = r.rows[0];
    if (top != null) await sql`UPDATE event_log_state SET pruned_through = greatest(pruned_through, ${Number(top)})`.execute(trx);
    return Number(n);
  });
}
