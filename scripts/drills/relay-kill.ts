/**
 * Fault drill: SIGKILL the worker while it relays a large backlog of events, at the worst moment:
 * after a relay pass has XADDed its batch to the Redis stream and before it deleted the batch from
 * the outbox and committed. Another worker then takes over. Goal: every committed event is on the
 * stream (lost 0), each article's events in order, and the copies the second worker sends again
 * carry the same event_id (and are the same object) as the first ones.
 *
 * How the moment is reached without racing the relay:
 *  1. the backlog is recorded with recordEvents in many transactions (news.submitted of one chunk of
 *     articles with news.approved of the previous chunk, so each article's two events lie apart)
 *     while no worker runs;
 *  2. the drill locks the second half of the backlog's outbox rows (FOR UPDATE): the relay's
 *     SKIP LOCKED claim passes them by, so the first worker relays exactly the first half and stops;
 *  3. the drill takes `LOCK TABLE event_outbox IN SHARE MODE` (the relay's claim, FOR UPDATE, still
 *     goes through; its DELETE does not) and releases the row locks; the worker's waker sees them at
 *     its next outbox probe, and the next pass claims up to 500 events, XADDs them, and blocks on
 *     its DELETE;
 *  4. SIGKILL the worker there, release the table lock (the dead worker's transaction rolls back, its
 *     events stay in the outbox), start a second worker.
 * Without the clock (the default) the second worker recovers by itself: its waker finds the events
 * at its first outbox probe and wakes the relay; that wake-up waits behind the dead worker's woken
 * run, which BullMQ's stalled-job check puts back after JOB_LOCK_MS. With --sweep the clock runs too (its 2 s sweep is not
 * deduplicated against the dead run).
 *
 * Prints exactly one line `events committed N, delivered N, lost 0, duplicates D`.
 *
 *   npx tsx scripts/drills/relay-kill.ts [--events 20000] [--chunk 100] [--lock-ms 2000] [--sweep]
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { articleEvent } from '../../src/articles/rules/article-event.js';
import { clientEvent, eventStreamKey, type NewsEvent } from '../../src/platform/events/events.js';
import { newsEvent, recordEvents } from '../../src/platform/events/log.js';
import { createUser, lastStreamId } from './lib/actors.js';
import { JWT_SECRET, sleep, Stack, type StackOptions } from './lib/stack.js';

export interface RelayKillOptions {
  /** Events in the backlog (two per article). */
  events?: number;
  /** Articles per recording transaction. */
  chunk?: number;
  /** JOB_LOCK_MS of the workers: how long a dead worker's relay run stays "active". */
  lockMs?: number;
  /** Run the clock too (its relay sweep every 2 s). */
  sweep?: boolean;
  stack?: StackOptions;
  log?: (line: string) => void;
  print?: (line: string) => void;
}

export interface RelayKillReport {
  committed: number;
  delivered: number;
  lost: number;
  /** Extra copies on the stream (each with the event_id of the first). */
  duplicates: number;
  recordMs: number;
  firstHalfMs: number;
  /** Outbox rows of the backlog when the worker was killed (half of the backlog, minus nothing: the pass in flight had not committed). */
  pendingAtKill: number;
  /** Events the killed pass had XADDed without committing. */
  inFlightAtKill: number;
  /** From the kill to the outbox being empty (the second worker's start included). */
  recoveryMs: number;
  secondWorkerStartMs: number;
  order: { articlesChecked: number; violations: string[] };
  duplicateMismatches: string[];
  processes: Record<string, string>;
  problems: string[];
}

export async function runRelayKillDrill(opts: RelayKillOptions = {}): Promise<RelayKillReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[relay-kill] ${l}\n`));
  const print = opts.print ?? ((l: string) => process.stdout.write(`${l}\n`));
  const total = Math.max(4, opts.events ?? 20_000);
  const chunk = opts.chunk ?? 100;
  const lockMs = opts.lockMs ?? 2000;
  const stack = await Stack.start({ ...opts.stack, env: { JOB_LOCK_MS: String(lockMs), ...opts.stack?.env }, log });
  const streamKey = eventStreamKey(stack.prefix);
  const problems: string[] = [];
  const rowLocks = new pg.Client({ connectionString: stack.env.DATABASE_URL, application_name: 'relay-kill-drill' });
  const tableLock = new pg.Client({ connectionString: stack.env.DATABASE_URL, application_name: 'relay-kill-drill' });
  await Promise.all([rowLocks.connect(), tableLock.connect()]);
  try {
    if (opts.sweep) await stack.spawn('clock');
    const editor = await createUser(stack.db, JWT_SECRET, ['staff', 'editor']);
    const baseline = await maxEventId(stack);
    const streamBaseline = await lastStreamId(stack.redis, streamKey);

    // ---- 1. the backlog, while no worker runs ----------------------------------------------------
    const t0 = Date.now();
    const n = Math.floor(total / 2);
    const run = `${process.pid}-${Date.now().toString(36)}`;
    const articles = (
      await sql<{ id: number; slug: string; status: string; headline: string; origin: string; created_at: Date; published_at: Date | null; sponsored: unknown }>`
        INSERT INTO articles (slug, headline, headline_source, url, normalized_url, source, status, origin, submitted_by, reviewed_by, reviewed_at, published_at)
        SELECT 'relay-kill-' || ${run} || '-' || i, 'Relay kill drill ' || i, 'supplied',
               'https://relay-kill.example/' || ${run} || '/' || i, 'https://relay-kill.example/' || ${run} || '/' || i, 'relay-kill.example',
               'approved', 'manual', ${editor.id}, ${editor.id}, now(), now()
        FROM generate_series(1, ${n}) AS i
        RETURNING id, slug, status, headline, origin, created_at, published_at, sponsored`.execute(stack.db)
    ).rows.sort((a, b) => a.id - b.id);
    const submitted = (a: (typeof articles)[number]) => newsEvent(articleEvent('news.submitted', { ...a, status: 'submitted', published_at: null }));
    const approved = (a: (typeof articles)[number]) => newsEvent(articleEvent('news.approved', a, 'submitted'));
    for (let i = 0; i < articles.length + chunk; i += chunk) {
      const these = articles.slice(i, i + chunk);
      const previous = i > 0 ? articles.slice(i - chunk, i) : [];
      const events = [...these.map(submitted), ...previous.map(approved)];
      if (events.length) await stack.db.transaction().execute((trx) => recordEvents(trx, events));
    }
    const recordMs = Date.now() - t0;
    const backlog = await outboxIds(stack, baseline);
    const top = backlog[backlog.length - 1];
    const mid = backlog[Math.floor(backlog.length / 2) - 1];
    log(`${backlog.length} events recorded in ${recordMs} ms (${Math.ceil(articles.length / chunk) + 1} transactions)`);

    // ---- 2. the first worker relays the first half -----------------------------------------------
    await rowLocks.query('BEGIN');
    const held = await rowLocks.query('SELECT event_id FROM event_outbox WHERE event_id > $1 AND event_id <= $2 FOR UPDATE', [mid, top]);
    const t1 = Date.now();
    const w1 = await stack.spawn('worker');
    await until('the first half relayed', async () => (await pending(stack, baseline, top)) === held.rowCount, 60_000);
    const firstHalfMs = Date.now() - t1;
    // Let the run that relayed it finish (it stops at the first empty claim).
    await sleep(300);
    let streamBefore = await streamLength(stack, streamBaseline);
    log(`first half relayed in ${firstHalfMs} ms (${streamBefore} stream entries); ${held.rowCount} events held back`);

    // ---- 3. the next pass XADDs and blocks before it can commit ----------------------------------
    await tableLock.query('BEGIN');
    await tableLock.query('LOCK TABLE event_outbox IN SHARE MODE');
    await rowLocks.query('COMMIT');
    // The worker's waker sees the released rows at its next outbox probe and wakes the relay. The
    // relayed first half keeps the worker busy with story-assign jobs whose story.assigned events
    // (internal: never on the stream) are relayed too; a pass that claimed only those before the row
    // locks went can be the one that blocks. Then the table lock is let go for that pass to finish
    // and taken again, until the blocked pass is one that XADDed backlog events.
    let inFlightAtKill = 0;
    for (let attempt = 0; ; attempt++) {
      await until('a relay pass blocked on its DELETE', () => relayBlockedOnDelete(stack), 30_000, 20);
      inFlightAtKill = (await streamLength(stack, streamBaseline)) - streamBefore;
      if (inFlightAtKill > 0 || attempt >= 20) break;
      log('the blocked pass carried no backlog events; releasing the table lock once');
      await tableLock.query('COMMIT');
      streamBefore = await streamLength(stack, streamBaseline);
      await tableLock.query('BEGIN');
      await tableLock.query('LOCK TABLE event_outbox IN SHARE MODE');
    }
    const pendingAtKill = await pending(stack, baseline, top);

    // ---- 4. SIGKILL, release, second worker ------------------------------------------------------
    log(`SIGKILL ${w1.name}: ${inFlightAtKill} events on the stream but not committed as relayed, ${pendingAtKill} in the outbox`);
    await w1.stop('SIGKILL');
    const killedAt = Date.now();
    await tableLock.query('COMMIT');
    await stack.spawn('worker');
    const secondWorkerStartMs = Date.now() - killedAt;
    await until('the outbox empty', async () => (await pending(stack, baseline, top)) === 0, Math.max(60_000, lockMs * 10), 50);
    const recoveryMs = Date.now() - killedAt;
    log(`outbox empty ${recoveryMs} ms after the kill`);

    // ---- the stream against the log ---------------------------------------------------------------
    const committedRows = (
      await sql<{ event_id: string; type: string; article_id: number | null; payload: string }>`
        SELECT event_id::text, type, article_id, payload::text AS payload FROM event_log
        WHERE event_id > ${baseline} AND visibility <> 'internal' ORDER BY event_id`.execute(stack.db)
    ).rows.map((r) => ({ ...r, event_id: Number(r.event_id) }));
    const entries = await streamEntries(stack, streamBaseline);
    const copies = new Map<number, string[]>();
    for (const e of entries) {
      const id = (JSON.parse(e) as NewsEvent).event_id;
      if (id === undefined) continue;
      (copies.get(id) ?? copies.set(id, []).get(id)!).push(e);
    }
    const committed = committedRows.length;
    const missing = committedRows.filter((r) => !copies.has(r.event_id));
    const delivered = committed - missing.length;
    if (committed !== backlog.length) problems.push(`${committed} client-visible events in the log, ${backlog.length} recorded`);
    if (missing.length)
      problems.push(
        `${missing.length} committed events are not on the stream (e.g. ${missing
          .slice(0, 5)
          .map((r) => r.event_id)
          .join(', ')})`,
      );
    const logged = new Map(committedRows.map((r) => [r.event_id, r.payload]));
    const unexpected = [...copies.keys()].filter((id) => !logged.has(id));
    if (unexpected.length) problems.push(`${unexpected.length} stream events the log does not hold after the baseline`);
    // Every copy is the logged event as clients get it (clientEvent), byte for byte (so a duplicate
    // carries the same event_id).
    const duplicateMismatches: string[] = [];
    for (const [id, list] of copies) {
      const want = logged.get(id);
      if (want === undefined) continue;
      const wantJson = clientEvent(want)?.json;
      for (const c of list) if (c !== wantJson) duplicateMismatches.push(`event ${id}: ${c.slice(0, 120)}`);
    }
    // A duplicate is the same change on the stream twice: same type and article, one event_id.
    const idsPerChange = new Map<string, Set<number>>();
    for (const e of entries) {
      const o = JSON.parse(e) as NewsEvent;
      const k = `${o.type}:${o.id}`;
      (idsPerChange.get(k) ?? idsPerChange.set(k, new Set()).get(k)!).add(o.event_id!);
    }
    for (const [k, ids] of idsPerChange) if (ids.size > 1) duplicateMismatches.push(`${k} carries event_ids ${[...ids].join(', ')}`);
    if (duplicateMismatches.length) problems.push(`${duplicateMismatches.length} copies differ from the logged event (${duplicateMismatches.slice(0, 3).join('; ')})`);
    const duplicates = [...copies.values()].reduce((a, l) => a + l.length - 1, 0);

    // Per article, first appearances on the stream in event_id order (submitted before approved).
    const firstSeen = new Set<number>();
    const perArticle = new Map<number, { id: number; type: string }[]>();
    for (const e of entries) {
      const o = JSON.parse(e) as NewsEvent;
      if (o.event_id === undefined || firstSeen.has(o.event_id)) continue;
      firstSeen.add(o.event_id);
      (perArticle.get(o.id) ?? perArticle.set(o.id, []).get(o.id)!).push({ id: o.event_id, type: o.type });
    }
    const violations: string[] = [];
    for (const [article, list] of perArticle) {
      for (let i = 1; i < list.length; i++)
        if (list[i].id < list[i - 1].id) violations.push(`article ${article}: ${list[i].type}#${list[i].id} after ${list[i - 1].type}#${list[i - 1].id}`);
    }
    if (violations.length) problems.push(`${violations.length} per-article order violations (${violations.slice(0, 3).join('; ')})`);
    if (inFlightAtKill === 0) problems.push('the worker was not killed with a pass in flight (nothing XADDed before the kill)');

    const processes = Object.fromEntries(stack.procs.filter((p) => p !== w1).map((p) => [p.name, p.running() ? 'running' : `exited ${JSON.stringify(p.output().slice(-500))}`]));
    for (const [name, state] of Object.entries(processes)) if (state !== 'running') problems.push(`${name} ${state}`);

    print(`events committed ${committed}, delivered ${delivered}, lost ${committed - delivered}, duplicates ${duplicates}`);
    return {
      committed,
      delivered,
      lost: committed - delivered,
      duplicates,
      recordMs,
      firstHalfMs,
      pendingAtKill,
      inFlightAtKill,
      recoveryMs,
      secondWorkerStartMs,
      order: { articlesChecked: perArticle.size, violations: violations.slice(0, 10) },
      duplicateMismatches: duplicateMismatches.slice(0, 10),
      processes,
      problems,
    };
  } finally {
    await rowLocks.query('ROLLBACK').catch(() => undefined);
    await tableLock.query('ROLLBACK').catch(() => undefined);
    await Promise.all([rowLocks.end().catch(() => undefined), tableLock.end().catch(() => undefined)]);
    await stack.close();
  }
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(everyMs);
  }
}

/** Is a worker's relay pass waiting on the table lock with its DELETE (after its XADD)? */
async function relayBlockedOnDelete(stack: Stack): Promise<boolean> {
  const r = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'worker' AND wait_event_type = 'Lock' AND query ILIKE 'DELETE FROM event_outbox%'`.execute(stack.db);
  return r.rows[0].n > 0;
}

async function maxEventId(stack: Stack): Promise<number> {
  const r = await sql<{ id: string | null }>`SELECT max(event_id)::text AS id FROM event_log`.execute(stack.db);
  return Number(r.rows[0]?.id ?? 0);
}

async function outboxIds(stack: Stack, after: number): Promise<number[]> {
  const r = await sql<{ id: string }>`SELECT event_id::text AS id FROM event_outbox WHERE event_id > ${after} ORDER BY event_id`.execute(stack.db);
  return r.rows.map((x) => Number(x.id));
}

async function pending(stack: Stack, after: number, through: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_outbox WHERE event_id > ${after} AND event_id <= ${through}`.execute(stack.db);
  return r.rows[0].n;
}

async function streamEntries(stack: Stack, afterId: string): Promise<string[]> {
  const out: string[] = [];
  let from = `(${afterId}`;
  for (;;) {
    const batch = (await stack.redis.xrange(eventStreamKey(stack.prefix), from, '+', 'COUNT', 2000)) as [string, string[]][];
    for (const [, fields] of batch) out.push(fields[fields.indexOf('e') + 1]);
    if (batch.length < 2000) return out;
    from = `(${batch[batch.length - 1][0]}`;
  }
}

async function streamLength(stack: Stack, afterId: string): Promise<number> {
  return (await streamEntries(stack, afterId)).length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { events: { type: 'string' }, chunk: { type: 'string' }, 'lock-ms': { type: 'string' }, sweep: { type: 'boolean' } } });
  const report = await runRelayKillDrill({
    events: values.events ? Number(values.events) : undefined,
    chunk: values.chunk ? Number(values.chunk) : undefined,
    lockMs: values['lock-ms'] ? Number(values['lock-ms']) : undefined,
    sweep: values.sweep,
  });
  process.stderr.write(`${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(report.problems.length ? `PROBLEMS: ${report.problems.join('; ')}\n` : 'problems: none\n');
  process.exit(report.problems.length ? 1 : 0);
}
