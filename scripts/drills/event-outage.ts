/**
 * Fault drill: Redis goes away between the commit of a change and the relay of its event.
 *
 * web, worker, clock and ws run as real processes on their own Redis (AOF, as in production) and a
 * PostgreSQL; a staff WebSocket client (src/stream/client.ts, access_token cookie) follows
 * /ws/news/. Editors submit articles with headlines and approve them at a steady pace. Redis is
 * stopped for `--down` seconds and started again.
 *
 * While Redis is down the web path answers 503 (its daily quota is counted in Redis), so almost
 * nothing it commits lands in the outage. To be sure that events are committed while the relay
 * cannot reach Redis, an out-of-band editor keeps submitting and approving through the routes' own
 * query functions (insertSubmission, transitionArticle: the same transactions, without the Redis
 * quota in front). Their wake-ups are lost (the waker cannot enqueue); they must wait in the outbox
 * and be relayed once Redis is back (the clock's 2 s sweep, or the next commit's wake-up).
 *
 * Truth is the database: the client-visible event_log rows recorded during the run, cross-checked
 * with the articles' states (one news.submitted per article, one news.approved per approved one) and
 * with every request answered 2xx. The standard:
 *  - every committed event reached the staff stream client (lost 0), each article's events in
 *    order (news.submitted before news.approved), no reconcile needed;
 *  - a duplicate (at-least-once) carries the same event_id as the first copy;
 *  - GET /api/v1/events/ (staff session) lists every one of them.
 * It prints exactly one line `events committed N, delivered N, lost 0`.
 *
 *   npx tsx scripts/drills/event-outage.ts [--down 5] [--before 4] [--after 5] [--editors 3]
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { NewsStream } from '../../src/stream/client.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { eventStreamKey, type NewsEvent } from '../../src/platform/events/events.js';
import { insertSubmission } from '../../src/articles/service.js';
import { transitionArticle } from '../../src/editor/service.js';
import { Api, createUser, lastStreamId, type User } from './lib/actors.js';
import { JWT_SECRET, sleep, Stack, type StackOptions } from './lib/stack.js';

export interface EventOutageOptions {
  /** Seconds of traffic before Redis stops, Redis down, traffic after it is back. */
  beforeS?: number;
  downS?: number;
  afterS?: number;
  /** Concurrent editors on the HTTP API. */
  editors?: number;
  /** Pause of each editor between submissions (ms). */
  pauseMs?: number;
  /** Out-of-band commits (the routes' query functions) while Redis is down; default on. */
  directWhileDown?: boolean;
  /**
   * GET /api/v1/events/: 'auto' checks it when the route exists (a 404 "no route" skips it, noted),
   * 'require' counts a missing route as a failure, 'off' skips it.
   */
  eventsEndpoint?: 'auto' | 'require' | 'off';
  /** How long to wait for the relay to drain at the end. */
  drainTimeoutMs?: number;
  stack?: StackOptions;
  log?: (line: string) => void;
  /** Where the summary line goes (stdout by default). */
  print?: (line: string) => void;
}

export interface EventOutageReport {
  committed: number;
  delivered: number;
  lost: number;
  /** Extra copies the client received (same event_id as the first). */
  duplicates: number;
  /** The Redis stream itself: committed events not on it, extra copies on it (relay re-sends). */
  streamMissing: number;
  streamDuplicates: number;
  http: {
    submits: Record<string, number>;
    approvals: Record<string, number>;
    acknowledgedSubmissions: number;
    acknowledgedApprovals: number;
  };
  database: { articles: number; approved: number; submittedEvents: number; approvedEvents: number };
  outage: {
    downMs: number;
    /** Client-visible events committed while Redis was down, by path. */
    committedWhileDown: number;
    committedWhileDownViaHttp: number;
    committedWhileDownDirect: number;
    /** Events in the outbox when Redis came back. */
    outboxWhenBack: number;
    /** From Redis back to the last event committed before that leaving the outbox. */
    backlogRelayedMs: number | null;
    /** ...and to the client having received all of them. */
    backlogDeliveredMs: number | null;
    /** The worker's "could not enqueue relay-events" warnings (wake-ups lost to the outage). */
    lostWakeups: number;
  };
  order: { articlesChecked: number; violations: string[] };
  duplicateMismatches: string[];
  endpoint: { checked: boolean; listed: number; missing: number; note: string | null };
  reconciles: string[];
  drainMs: number;
  processes: Record<string, string>;
  /** Everything that fails the standard (empty when the drill passed). */
  problems: string[];
}

interface Receipt {
  event: NewsEvent;
  at: number;
}

let seq = 0;

export async function runEventOutageDrill(opts: EventOutageOptions = {}): Promise<EventOutageReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[event-outage] ${l}\n`));
  const print = opts.print ?? ((l: string) => process.stdout.write(`${l}\n`));
  const endpointMode = opts.eventsEndpoint ?? 'auto';
  const stack = await Stack.start({ redisPersistent: true, ...opts.stack, log });
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const urlOf = (n: number) => `https://outage-drill.example/${run}/${n}`;
  const problems: string[] = [];
  let stream: NewsStream | null = null;
  let addr = 0;
  const api = new Api(stack.webUrl, { timeoutMs: 30_000, localAddress: () => `127.0.0.${2 + (addr++ % 250)}` });
  try {
    const [, worker] = await Promise.all([stack.spawn('web'), stack.spawn('worker'), stack.spawn('clock'), stack.spawn('ws')]);
    const staff = await createUser(stack.db, JWT_SECRET, ['staff', 'editor']);

    // The truth starts after everything recorded before this run (the database may be shared).
    const baseline = await maxEventId(stack);
    const streamBaseline = await lastStreamId(stack.redis, eventStreamKey(stack.prefix));

    // ---- the staff stream client ------------------------------------------------------------------
    const receipts: Receipt[] = [];
    const reconciles: string[] = [];
    let markOpen!: () => void;
    const opened = new Promise<void>((r) => (markOpen = r));
    stream = new NewsStream({
      url: stack.wsUrl,
      origin: stack.env.TRUSTED_ORIGIN,
      accessToken: () => staff.token,
      onEvents: (events) => {
        const at = Date.now();
        for (const e of events) receipts.push({ event: e, at });
      },
      repoll: (reason) => void reconciles.push(reason),
      onState: (s) => s === 'open' && markOpen(),
      baseDelayMs: 200,
      maxDelayMs: 2000,
    });
    stream.start();
    await opened;
    await sleep(300);

    // ---- traffic --------------------------------------------------------------------------------
    const acknowledged = { submitted: new Map<number, string>(), approved: new Set<number>() };
    let running = true;
    const editor = async () => {
      // Approvals refused during the outage are retried later, so that some articles are submitted
      // before the outage and approved after it.
      const pending: number[] = [];
      while (running || pending.length > 0) {
        if (running) {
          const n = ++seq;
          const s = await api.post('submit', '/api/v1/news/post', { url: urlOf(n), headline: `Outage drill headline ${run} ${n}` }, staff.bearer);
          if (s.status === 201) {
            acknowledged.submitted.set(s.body.article_id, urlOf(n));
            pending.push(s.body.article_id);
          }
        }
        const id = pending.shift();
        if (id !== undefined) {
          const a = await api.post('approve', `/api/v1/news/${id}/approve`, undefined, staff.bearer);
          if (a.status === 200) acknowledged.approved.add(id);
          else if (a.status === null || a.status >= 500) {
            if (running) pending.push(id);
          }
        }
        await sleep(opts.pauseMs ?? 60);
      }
    };
    log(`staff client connected; ${opts.editors ?? 3} editors submit and approve`);
    const editors = Array.from({ length: opts.editors ?? 3 }, () => editor());
    await sleep((opts.beforeS ?? 4) * 1000);

    // ---- the outage -----------------------------------------------------------------------------
    const directIds = new Set<number>();
    let outage = true;
    const direct = async () => {
      while (outage) {
        const n = ++seq;
        const url = urlOf(n);
        try {
          const r = await insertSubmission(stack.db, {
            url,
            normalizedUrl: normalizeUrl(url)!,
            headline: `Outage drill direct ${run} ${n}`,
            headlineSource: 'supplied',
            source: 'outage-drill.example',
            userId: staff.id,
          });
          if (r.created) {
            directIds.add(r.created.id);
            await transitionArticle(stack.db, { id: r.created.id, action: 'approve', editorId: staff.id });
          }
        } catch (err) {
          problems.push(`out-of-band commit failed: ${(err as Error).message}`);
        }
        await sleep(100);
      }
    };
    const downAt = Date.now();
    log('stopping redis');
    await stack.server('redis').stop();
    const directWriter = opts.directWhileDown === false ? Promise.resolve() : direct();
    await sleep((opts.downS ?? 5) * 1000);
    outage = false;
    await directWriter;
    const lastBeforeUp = await maxEventId(stack);
    const outboxWhenBack = await pendingThrough(stack, Number.MAX_SAFE_INTEGER);
    log(`starting redis (${outboxWhenBack} events in the outbox)`);
    await stack.server('redis').start();
    const upAt = Date.now();

    // How long the outage's backlog takes to leave the outbox once Redis is back.
    let backlogRelayedMs: number | null = null;
    const watchBacklog = (async () => {
      const until = upAt + 60_000;
      while (Date.now() < until) {
        if ((await pendingThrough(stack, lastBeforeUp)) === 0) {
          backlogRelayedMs = Date.now() - upAt;
          return;
        }
        await sleep(50);
      }
    })();

    await sleep((opts.afterS ?? 5) * 1000);
    running = false;
    await Promise.all(editors);
    log('traffic stopped; waiting for the relay to drain');

    // ---- truth: the client-visible events recorded during the run --------------------------------
    const drainStart = Date.now();
    const drainUntil = drainStart + (opts.drainTimeoutMs ?? 30_000);
    let committedRows = await visibleEvents(stack, baseline);
    const deliveredIds = () => new Set(receipts.map((r) => r.event.event_id));
    for (;;) {
      const outboxLeft = await pendingThrough(stack, Number.MAX_SAFE_INTEGER);
      committedRows = await visibleEvents(stack, baseline);
      const got = deliveredIds();
      if (outboxLeft === 0 && committedRows.every((r) => got.has(r.event_id))) break;
      if (Date.now() > drainUntil) {
        problems.push(`not drained after ${opts.drainTimeoutMs ?? 30_000} ms: ${outboxLeft} events still in the outbox`);
        break;
      }
      await sleep(100);
    }
    const drainMs = Date.now() - drainStart;
    await watchBacklog;
    // Late duplicates (a pass re-sent after a Redis error) would arrive within a batch window.
    await sleep(500);

    const got = deliveredIds();
    const committed = committedRows.length;
    const missing = committedRows.filter((r) => !got.has(r.event_id));
    const delivered = committed - missing.length;
    if (missing.length)
      problems.push(
        `${missing.length} committed events never reached the stream client (e.g. ${missing
          .slice(0, 5)
          .map((r) => `${r.type}:${r.article_id}#${r.event_id}`)
          .join(', ')})`,
      );
    if (reconciles.length) problems.push(`the stream client was told to reconcile (${reconciles.join(', ')})`);

    const firstReceipt = new Map<number, number>();
    receipts.forEach((r, i) => {
      if (!firstReceipt.has(r.event.event_id!)) firstReceipt.set(r.event.event_id!, i);
    });
    const backlog = committedRows.filter((r) => r.event_id <= lastBeforeUp);
    const backlogArrivals = backlog.map((r) => receipts[firstReceipt.get(r.event_id) ?? -1]?.at).filter((x): x is number => x !== undefined);
    const backlogDeliveredMs = backlog.length > 0 && backlogArrivals.length === backlog.length ? Math.max(0, Math.max(...backlogArrivals) - upAt) : null;

    // ---- database cross-check -------------------------------------------------------------------
    const articles = await stack.db.selectFrom('articles').select(['id', 'status', 'created_at']).where('url', 'like', `https://outage-drill.example/${run}/%`).execute();
    const byType = (t: string) => committedRows.filter((r) => r.type === t);
    const submittedEvents = byType('news.submitted');
    const approvedEvents = byType('news.approved');
    const articleIds = new Set(articles.map((a) => a.id));
    const approvedIds = new Set(articles.filter((a) => a.status === 'approved').map((a) => a.id));
    const countBy = (rows: { article_id: number | null }[]) => {
      const m = new Map<number, number>();
      for (const r of rows) m.set(r.article_id!, (m.get(r.article_id!) ?? 0) + 1);
      return m;
    };
    const subCount = countBy(submittedEvents);
    const appCount = countBy(approvedEvents);
    const noSubmitted = [...articleIds].filter((id) => subCount.get(id) !== 1);
    const noApproved = [...approvedIds].filter((id) => appCount.get(id) !== 1);
    const strays = committedRows.filter((r) => r.article_id === null || !articleIds.has(r.article_id) || (r.type !== 'news.submitted' && r.type !== 'news.approved'));
    if (noSubmitted.length) problems.push(`${noSubmitted.length} stored articles without exactly one news.submitted (${noSubmitted.slice(0, 5).join(', ')})`);
    if (noApproved.length) problems.push(`${noApproved.length} approved articles without exactly one news.approved (${noApproved.slice(0, 5).join(', ')})`);
    if (approvedEvents.length !== approvedIds.size) problems.push(`${approvedEvents.length} news.approved events for ${approvedIds.size} approved articles`);
    if (strays.length)
      problems.push(
        `${strays.length} events not about this run's articles (e.g. ${strays
          .slice(0, 3)
          .map((r) => `${r.type}:${r.article_id}`)
          .join(', ')})`,
      );
    const notStored = [...acknowledged.submitted.keys()].filter((id) => !articleIds.has(id));
    const notApproved = [...acknowledged.approved].filter((id) => !approvedIds.has(id));
    if (notStored.length) problems.push(`${notStored.length} acknowledged submissions are not stored`);
    if (notApproved.length) problems.push(`${notApproved.length} acknowledged approvals are not in the database`);

    const whileDown = committedRows.filter((r) => r.recorded_at.getTime() >= downAt && r.recorded_at.getTime() <= upAt);
    const whileDownDirect = whileDown.filter((r) => directIds.has(r.article_id!)).length;

    // ---- per-article order and duplicates, as the client saw them --------------------------------
    const violations: string[] = [];
    const perArticle = new Map<number, number[]>();
    const seen = new Set<number>();
    for (const r of receipts) {
      const id = r.event.event_id!;
      if (seen.has(id)) continue;
      seen.add(id);
      const list = perArticle.get(r.event.id) ?? [];
      list.push(id);
      perArticle.set(r.event.id, list);
    }
    const typeOf = new Map(committedRows.map((r) => [r.event_id, r.type]));
    for (const [article, ids] of perArticle) {
      for (let i = 1; i < ids.length; i++) if (ids[i] < ids[i - 1]) violations.push(`article ${article}: event ${ids[i]} after ${ids[i - 1]}`);
      const s = ids.findIndex((x) => typeOf.get(x) === 'news.submitted');
      const a = ids.findIndex((x) => typeOf.get(x) === 'news.approved');
      if (a !== -1 && (s === -1 || a < s)) violations.push(`article ${article}: news.approved before news.submitted`);
    }
    if (violations.length) problems.push(`${violations.length} per-article order violations (${violations.slice(0, 3).join('; ')})`);

    // A duplicate is the same change received again: same type, article and status. It must carry
    // the same event_id (and be the same object).
    const copies = new Map<string, Set<string>>();
    for (const r of receipts) {
      const e = r.event;
      const k = `${e.type}:${e.id}:${e.status}:${e.previous_status ?? ''}`;
      (copies.get(k) ?? copies.set(k, new Set()).get(k)!).add(JSON.stringify(e));
    }
    const duplicateMismatches = [...copies.entries()]
      .filter(([, v]) => v.size > 1)
      .map(([k, v]) => `${k}: ${[...v].map((x) => (JSON.parse(x) as NewsEvent).event_id).join(' vs ')}`);
    if (duplicateMismatches.length) problems.push(`${duplicateMismatches.length} duplicates with a different event_id or payload (${duplicateMismatches.slice(0, 3).join('; ')})`);
    const duplicates = receipts.length - seen.size;
    const unexpected = [...seen].filter((id) => !typeOf.has(id));
    if (unexpected.length) problems.push(`${unexpected.length} events received that the log does not hold after the baseline (${unexpected.slice(0, 5).join(', ')})`);

    const onStream = await streamCopies(stack, streamBaseline);
    const streamMissing = committedRows.filter((r) => !onStream.has(r.event_id)).length;
    const streamDuplicates = [...onStream.values()].reduce((a, n) => a + n - 1, 0);
    if (streamMissing) problems.push(`${streamMissing} committed events are not on the Redis stream`);

    // ---- GET /api/v1/events/ ----------------------------------------------------------------------
    const endpoint = { checked: false, listed: 0, missing: 0, note: null as string | null };
    if (endpointMode !== 'off') {
      const r = await listViaEndpoint(api, staff, baseline);
      if (r.state === 'no-route') {
        endpoint.note = 'GET /api/v1/events/ does not exist yet (404 no route): checked against event_log instead';
        if (endpointMode === 'require') problems.push(endpoint.note);
      } else {
        endpoint.checked = true;
        const listed = new Set(r.ids);
        endpoint.listed = committedRows.filter((x) => listed.has(x.event_id)).length;
        endpoint.missing = committed - endpoint.listed;
        if (r.state === 'error') {
          endpoint.note = r.error;
          problems.push(`GET /api/v1/events/: ${r.error}`);
        }
        if (endpoint.missing) problems.push(`GET /api/v1/events/ misses ${endpoint.missing} committed events`);
        const extra = r.ids.filter((id) => !typeOf.has(id));
        if (extra.length) problems.push(`GET /api/v1/events/ lists ${extra.length} events that are not client-visible events of this run`);
      }
    }

    const lostWakeups = (worker.output().match(/could not enqueue relay-events/g) ?? []).length;
    const processes = Object.fromEntries(stack.procs.map((p) => [p.name, p.running() ? 'running' : `exited ${JSON.stringify(p.output().slice(-500))}`]));
    for (const [name, state] of Object.entries(processes)) if (state !== 'running') problems.push(`${name} ${state}`);
    if (whileDown.length === 0 && opts.directWhileDown !== false) problems.push('no event was committed while Redis was down: the drill did not test the outage');

    print(`events committed ${committed}, delivered ${delivered}, lost ${committed - delivered}`);
    return {
      committed,
      delivered,
      lost: committed - delivered,
      duplicates,
      streamMissing,
      streamDuplicates,
      http: {
        submits: summarizeOp(api, 'submit'),
        approvals: summarizeOp(api, 'approve'),
        acknowledgedSubmissions: acknowledged.submitted.size,
        acknowledgedApprovals: acknowledged.approved.size,
      },
      database: { articles: articles.length, approved: approvedIds.size, submittedEvents: submittedEvents.length, approvedEvents: approvedEvents.length },
      outage: {
        downMs: upAt - downAt,
        committedWhileDown: whileDown.length,
        committedWhileDownViaHttp: whileDown.length - whileDownDirect,
        committedWhileDownDirect: whileDownDirect,
        outboxWhenBack,
        backlogRelayedMs,
        backlogDeliveredMs,
        lostWakeups,
      },
      order: { articlesChecked: perArticle.size, violations: violations.slice(0, 10) },
      duplicateMismatches: duplicateMismatches.slice(0, 10),
      endpoint,
      reconciles,
      drainMs,
      processes,
      problems,
    };
  } finally {
    await stream?.stop();
    api.close();
    await stack.close();
  }
}

interface VisibleEvent {
  event_id: number;
  type: string;
  article_id: number | null;
  recorded_at: Date;
}

async function maxEventId(stack: Stack): Promise<number> {
  const r = await sql<{ id: string | null }>`SELECT max(event_id)::text AS id FROM event_log`.execute(stack.db);
  return Number(r.rows[0]?.id ?? 0);
}

async function visibleEvents(stack: Stack, after: number): Promise<VisibleEvent[]> {
  const r = await sql<VisibleEvent>`
    SELECT event_id, type, article_id, recorded_at FROM event_log
    WHERE event_id > ${after} AND visibility <> 'internal'
    ORDER BY event_id`.execute(stack.db);
  return r.rows.map((x) => ({ ...x, event_id: Number(x.event_id) }));
}

/** Events still in the outbox with an id up to `through`. */
async function pendingThrough(stack: Stack, through: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_outbox WHERE event_id <= ${through}`.execute(stack.db);
  return r.rows[0].n;
}

type Listing = { state: 'ok'; ids: number[] } | { state: 'no-route' } | { state: 'error'; ids: number[]; error: string };

/** Page through GET /api/v1/events/?after= as a staff session. */
async function listViaEndpoint(api: Api, staff: User, after: number): Promise<Listing> {
  const ids: number[] = [];
  let cursor = after;
  for (let page = 0; page < 10_000; page++) {
    const r = await api.get('events', `/api/v1/events/?after=${cursor}&limit=100`, staff.bearer);
    // The endpoint answers 200, 400 or 410 (its OpenAPI responses), never 404: a 404 means a build without it.
    if (r.status === 404 && r.code === 'not_found') return { state: 'no-route' };
    if (r.status !== 200 || !Array.isArray(r.body?.results)) return { state: 'error', ids, error: `answered ${r.status ?? r.error} ${r.code ?? ''} on page ${page + 1}` };
    for (const e of r.body.results as { event_id: number }[]) ids.push(Number(e.event_id));
    if (!r.body.has_more) return { state: 'ok', ids };
    const next = Number(r.body.next_after);
    if (!(next > cursor)) return { state: 'error', ids, error: `next_after ${r.body.next_after} does not advance past ${cursor}` };
    cursor = next;
  }
  return { state: 'error', ids, error: 'more than 10,000 pages' };
}

function summarizeOp(api: Api, op: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of api.outcomes) {
    if (o.op !== op) continue;
    const key = o.status !== null ? `${o.status}${o.code ? ' ' + o.code : ''}` : `ERR ${o.error}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Copies of each event_id on the Redis stream after `afterId` (the relay's XADDs, re-sends included). */
async function streamCopies(stack: Stack, afterId: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  let from = `(${afterId}`;
  for (;;) {
    const batch = (await stack.redis.xrange(eventStreamKey(stack.prefix), from, '+', 'COUNT', 1000)) as [string, string[]][];
    for (const [, fields] of batch) {
      const e = JSON.parse(fields[fields.indexOf('e') + 1]) as NewsEvent;
      if (e.event_id !== undefined) out.set(e.event_id, (out.get(e.event_id) ?? 0) + 1);
    }
    if (batch.length < 1000) return out;
    from = `(${batch[batch.length - 1][0]}`;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { down: { type: 'string' }, before: { type: 'string' }, after: { type: 'string' }, editors: { type: 'string' }, endpoint: { type: 'string' } },
  });
  const report = await runEventOutageDrill({
    downS: values.down ? Number(values.down) : undefined,
    beforeS: values.before ? Number(values.before) : undefined,
    afterS: values.after ? Number(values.after) : undefined,
    editors: values.editors ? Number(values.editors) : undefined,
    eventsEndpoint: (values.endpoint as EventOutageOptions['eventsEndpoint']) ?? undefined,
  });
  process.stderr.write(`${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(report.problems.length ? `PROBLEMS: ${report.problems.join('; ')}\n` : 'problems: none\n');
  process.exit(report.problems.length ? 1 : 0);
}
