/**
 * Durable event log benchmark (transactional outbox): three figures, each against a baseline or a
 * goal measured in the same run.
 *
 *  1. End-to-end latency, commit -> WebSocket client, through the real path and processes:
 *     editor approvals (POST /api/v1/news/:id/approve, open loop at --rate per second) of
 *     pre-submitted articles -> web process (src/bin/web.ts) commits the change with its news.approved
 *     event -> worker process (src/bin/worker.ts: outbox-probing waker -> BullMQ relay-events -> relayBatch,
 *     XADD) -> Redis stream -> ws process (src/bin/ws.ts: XREAD, batches of WS_BATCH_MS / WS_BATCH_MAX)
 *     -> --clients WebSocket clients (--staff-clients of them with a staff cookie) in --client-procs
 *     processes; the clock process (src/bin/clock.ts) runs too, so the 2 s relay sweep is part of it.
 *     Commit time: pg_xact_commit_timestamp(event_log.txid), i.e. PostgreSQL's own clock reading
 *     when it wrote the commit record (track_commit_timestamp = on). Not event_log.recorded_at (that
 *     is now(), the transaction's start) and not the HTTP response (it leaves after the commit).
 *     Receive time: Date.now() in the client process when the frame's message event fires. Same
 *     machine, same system clock, 1 ms resolution. p50 / p99 against the goal p99 < 300 ms, and
 *     where the time goes (commit -> XADD, XADD -> clients, relay runs from BullMQ's job records).
 *  2. Relay throughput on its own: --relay-events events recorded with recordEvents (transactions of
 *     500), then drained by one and by two relay processes (scripts/bench/lib/relay-drain.ts:
 *     relayUntilEmpty, each with its own pool), alternated; events/s against the goal >= 5,000/s
 *     with two.
 *  3. What the outbox adds to a submission (POST /api/v1/news/post, headline supplied): the
 *     service's handler (A) against a baseline handler (B, scripts/bench/lib/submission-baseline.ts:
 *     the same transaction without recordEvents, then INCR + XADD after commit), both the real
 *     createApp() in this process, a worker process relaying A's events, runs alternated A B A B ...
 *     in two modes: closed loop at --submit-concurrency connections (latency under the same
 *     concurrency) and open loop at --submit-rate requests/s (below both capacities: CPU per request
 *     without queueing). Server time = CPU per request of the web process + its PostgreSQL backends;
 *     medians and ratios against the goal A < 1.10 x B. Also the relay's CPU per event, and
 *     pg_stat_activity samples of event writers in flight (holding the event-writer key).
 *
 * Starts its own PostgreSQL (fsync off, track_commit_timestamp on) and Redis unless DATABASE_URL /
 * REDIS_URL are set (then that PostgreSQL needs track_commit_timestamp = on). A database
 * squid_bench_events_<pid> is created and dropped.
 *
 *   npm run bench:events                 # full figures (~6 min)
 *   npm run bench:events -- --quick      # short runs (~90 s)
 *   npm run bench:events -- --seconds 10 --rate 200 --only latency
 *   flags: --rate 200 --seconds 60 --warmup 5 --connections 32 --clients 500 --staff-clients 10
 *          --client-procs 2 --no-clock --relay-events 50000 --relay-rounds 3 --submit-runs 5
 *          --submit-seconds 8 --submit-concurrency 8 --submit-rate 150 --only latency,relay,submit
 *   (--quick: --seconds 10 --warmup 2 --relay-events 10000 --relay-rounds 1 --submit-runs 2 --submit-seconds 3)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Queue } from 'bullmq';
import type Koa from 'koa';
import { sql } from 'kysely';
import pg from 'pg';
import { RELAY_WAKE_ID } from '../../jobs/relay-events.js';
import { createApp } from '../../src/app.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { articleEvent } from '../../src/articles/rules/article-event.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { insertSubmission } from '../../src/articles/service.js';
import { internalEvent, newsEvent, recordEvents, type EventInput } from '../../src/platform/events/log.js';
import { invalidateFeedCache } from '../../src/feed/cache.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { RELAY_BATCH } from '../../src/relay/relay.js';
import { allRoutes } from '../../src/routes.js';
import { backingServices } from '../lib/backing-services.js';
import { freePort, type RunningService } from '../lib/services.js';
import type { ClosedCmd, ClosedDone, RateCmd, RateDone } from './lib/post-load.js';
import { nextMessage, sleep, startProc, startProcfileType, waitExit, waitForPort, waitUntil, type Proc } from '../lib/harness.js';
import { cpuTicks, machineTicks, TICKS_PER_S, TreeMeter } from '../lib/proc-stat.js';
import { repoRoot } from '../lib/procfile.js';
import { ActivitySampler, backendCpu, backendCpuDelta } from './lib/pg-activity.js';
import { median, MsHistogram, pct } from './lib/stats.js';
import { baselineSubmitRoute } from './lib/submission-baseline.js';
import { listenLocal } from './lib/bench-stack.js';
import type { ClientReport, ConnectCmd } from './lib/ws-clients.js';
import { jobs } from '../../jobs/index.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    clients: { type: 'string' },
    'staff-clients': { type: 'string' },
    'client-procs': { type: 'string' },
    connections: { type: 'string' },
    'no-clock': { type: 'boolean', default: false },
    'relay-events': { type: 'string' },
    'relay-rounds': { type: 'string' },
    'submit-runs': { type: 'string' },
    'submit-seconds': { type: 'string' },
    'submit-concurrency': { type: 'string' },
    'submit-rate': { type: 'string' },
    only: { type: 'string' },
  },
});
const quick = values.quick!;
const num = (v: string | undefined, full: number, short: number) => (v !== undefined ? Number(v) : quick ? short : full);
const O = {
  rate: num(values.rate, 200, 200),
  seconds: num(values.seconds, 60, 10),
  warmup: num(values.warmup, 5, 2),
  clients: num(values.clients, 500, 500),
  staffClients: num(values['staff-clients'], 10, 10),
  clientProcs: num(values['client-procs'], 2, 2),
  connections: num(values.connections, 32, 32),
  clock: !values['no-clock'],
  relayEvents: num(values['relay-events'], 50_000, 10_000),
  relayRounds: num(values['relay-rounds'], 3, 1),
  submitRuns: num(values['submit-runs'], 5, 2),
  submitSeconds: num(values['submit-seconds'], 8, 3),
  submitConcurrency: num(values['submit-concurrency'], 8, 8),
  submitRate: num(values['submit-rate'], 150, 150),
};
const only = new Set((values.only ?? 'latency,relay,submit').split(',').map((s) => s.trim()));

const here = path.dirname(new URL(import.meta.url).pathname);
const helper = (name: string) => path.join(here, 'lib', name);
/** A helper of scripts/bench/lib/ in its own process, driven over IPC; its output goes to stderr. */
const forkHelper = (name: string, args: string[] = []) => startProc(name, helper(name), {}, args, { ipc: true, echo: 'all' });
/** A Procfile process type from source; it ends with this process; its log lines go to stderr (stdout carries only the figures). */
const startService = (name: 'web' | 'worker' | 'ws' | 'clock', env: Record<string, string>) => startProcfileType(name, { ...env, EXIT_WITH_PARENT: 'true' }, { echo: 'all' });
const log = (l: string) => process.stderr.write(`[bench] ${l}\n`);
const out = (l = '') => process.stdout.write(l + '\n');
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const ms = (n: number) => `${f(n, 0)} ms`;
const JWT_SECRET = randomBytes(32).toString('hex');

interface Ctx {
  databaseUrl: string;
  redisUrl: string;
  /** PostgreSQL's postmaster and redis-server pids when this run started them (for CPU figures). */
  pgPid: number | null;
  /** CPU of the PostgreSQL server's processes when this run started it. */
  pgCpu: TreeMeter | null;
  redisPid: number | null;
  db: Db;
  admin: pg.Client;
  tmp: string;
  users: { editor: number; staff: number; submitter: number };
}

// ---------------------------------------------------------------------------------------------
// Figure 1: end-to-end latency

/** The worker's relay waker has its connection and probes the outbox (src/relay/waker.ts). */
async function wakerProbing(admin: pg.Client): Promise<void> {
  await waitUntil(
    async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'relay-waker' AND query ILIKE '%event_outbox%'`)).rowCount! > 0,
    60_000,
    "the worker's relay waker to probe the outbox",
  );
}

async function latencyFigure(c: Ctx): Promise<{ p99: number; rate: number; goalMs: number }> {
  const prefix = `bev${process.pid}l`;
  // The ws process runs with the defaults (src/platform/config.ts).
  const defaults = loadConfig({ DATABASE_URL: c.databaseUrl, REDIS_URL: c.redisUrl, JWT_SECRET });
  const batch = { ms: defaults.WS_BATCH_MS, max: defaults.WS_BATCH_MAX };
  const total = Math.round(O.rate * (O.warmup + O.seconds));
  const warmN = Math.round(O.rate * O.warmup);
  log(`latency: seeding ${total} submitted articles`);
  const seeded = await sql<{ id: number }>`
    INSERT INTO articles (slug, headline, url, normalized_url, source, status, origin, submitted_by, created_at)
    SELECT 'bench-event-story-' || g, 'Bench event story ' || g || ': Lido governance update',
           'https://bench-events.example/story/' || g, 'https://bench-events.example/story/' || g,
           'bench-events.example', 'submitted', 'manual', ${c.users.submitter}::int, now() - interval '10 minutes'
    FROM generate_series(1, ${total}::int) g
    RETURNING id`.execute(c.db);
  const ids = seeded.rows.map((r) => r.id).sort((a, b) => a - b);
  await sql`VACUUM ANALYZE articles`.execute(c.db);

  const webPort = await freePort();
  const wsPort = await freePort();
  const origin = `http://127.0.0.1:${webPort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: c.databaseUrl,
    REDIS_URL: c.redisUrl,
    QUEUE_PREFIX: prefix,
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(webPort),
    WS_PORT: String(wsPort),
    TRUSTED_ORIGIN: origin,
    PUBLIC_BASE_URL: origin,
    DATA_DIR: path.join(c.tmp, 'data'),
    SESSION_DAILY_QUOTA: '1000000000',
    ANON_DAILY_QUOTA: '1000000000',
    WS_MAX_CONNECTIONS: String(O.clients + 100),
    WS_MAX_PER_IP: String(O.clients + 100),
  };
  const procs: Proc[] = [];
  const helpers: Proc[] = [];
  const redis = createRedis(c.redisUrl, 'command', 'bench');
  const queue = new QueueClient(jobs, redis, c.redisUrl, prefix);
  try {
    log('latency: starting worker, ws, web' + (O.clock ? ', clock' : ''));
    const worker = startService('worker', env);
    const ws = startService('ws', env);
    const web = startService('web', env);
    procs.push(worker, ws, web);
    const clock = O.clock ? startService('clock', env) : null;
    if (clock) procs.push(clock);
    await waitForPort(webPort, procs, 60_000);
    await waitForPort(wsPort, procs, 60_000);
    await wakerProbing(c.admin);
    if (clock) await waitUntil(async () => (await queue.queue('relay-events').getJobSchedulers()).length > 0, 60_000, 'the clock to upsert the relay sweep');

    const seq = await c.admin.query<{ last_value: string; is_called: boolean }>('SELECT last_value, is_called FROM event_log_event_id_seq');
    const base = Number(seq.rows[0].last_value) - (seq.rows[0].is_called ? 0 : 1);
    const capacity = Math.ceil(total * 1.5) + 5000;

    const editorToken = await signAccessToken(JWT_SECRET, { userId: c.users.editor, address: '0x' + 'e'.repeat(40), roles: ['editor'] });
    const staffToken = await signAccessToken(JWT_SECRET, { userId: c.users.staff, address: '0x' + '5'.repeat(40), roles: ['staff'] });
    log(`latency: opening ${O.clients} WebSocket connections (${O.staffClients} staff) from ${O.clientProcs} processes`);
    const clientProcs = Array.from({ length: O.clientProcs }, () => forkHelper('ws-clients.ts'));
    helpers.push(...clientProcs);
    await Promise.all(clientProcs.map((p) => nextMessage(p, 'ready')));
    const connected = await Promise.all(
      clientProcs.map((p, i) => {
        const count = Math.floor(O.clients / O.clientProcs) + (i < O.clients % O.clientProcs ? 1 : 0);
        const staff = Math.floor(O.staffClients / O.clientProcs) + (i < O.staffClients % O.clientProcs ? 1 : 0);
        p.child.send({
          cmd: 'connect',
          url: `ws://127.0.0.1:${wsPort}/ws/news/`,
          origin,
          count,
          staff,
          staffCookie: `access_token=${encodeURIComponent(staffToken)}`,
          base,
          capacity,
        } satisfies ConnectCmd);
        return nextMessage<{ ok: number; staff: number; failed: number; ms: number }>(p, 'connected', 120_000);
      }),
    );
    const open = connected.reduce((s, x) => s + x.ok, 0);
    const staffOpen = connected.reduce((s, x) => s + x.staff, 0);
    const failed = connected.reduce((s, x) => s + x.failed, 0);
    log(`latency: ${open} connections open (${staffOpen} staff, ${failed} failed)`);
    await sleep(1000);

    // The generator: every request approves one article; the first warmN are the warm-up.
    const gen = forkHelper('post-load.ts');
    helpers.push(gen);
    await nextMessage(gen, 'ready');
    const cpuPids: Record<string, number[]> = {
      web: [web.pid],
      worker: [worker.pid],
      ws: [ws.pid],
      ...(clock ? { clock: [clock.pid] } : {}),
      'client processes': clientProcs.map((p) => p.pid),
      'load generator': [gen.pid],
    };
    const snapshot = () => {
      const s: Record<string, number> = {};
      for (const [k, pids] of Object.entries(cpuPids)) s[k] = pids.reduce((a, p) => a + cpuTicks(p), 0);
      if (c.pgPid) s.postgres = c.pgCpu!.ticks();
      if (c.redisPid) s.redis = cpuTicks(c.redisPid);
      s.bench = Math.round(((u) => (u.user + u.system) / 1e4)(process.cpuUsage()));
      return { at: Date.now(), s, machine: machineTicks() };
    };
    const sampler = new ActivitySampler(c.admin, 'web');
    log(`latency: ${warmN} warm-up + ${total - warmN} measured approvals at ${O.rate}/s`);
    gen.child.send({
      cmd: 'rate',
      base: origin,
      paths: ids.map((id) => `/api/v1/news/${id}/approve`),
      rate: O.rate,
      headers: { authorization: `Bearer ${editorToken}` },
      connections: O.connections,
    } satisfies RateCmd);
    const { t0 } = await nextMessage<{ t0: number }>(gen, 'started');
    // BullMQ keeps the last 1000 completed relay-events jobs: collect them as the run goes.
    type RelayJob = Awaited<ReturnType<Queue['getJobs']>>[number];
    const relayJobs = new Map<string, RelayJob>();
    const collectJobs = async () => {
      for (const j of await queue.queue('relay-events').getJobs(['completed'], 0, -1)) if (j.id && j.processedOn && j.finishedOn) relayJobs.set(j.id, j);
    };
    const collector = setInterval(() => void collectJobs().catch(() => undefined), 3000);
    let cpuA: ReturnType<typeof snapshot> | null = null;
    let cpuB: ReturnType<typeof snapshot> | null = null;
    const tA = setTimeout(
      () => {
        cpuA = snapshot();
        sampler.start();
      },
      Math.max(0, t0 + O.warmup * 1000 - Date.now()),
    );
    const tB = setTimeout(() => (cpuB = snapshot()), Math.max(0, t0 + (O.warmup + O.seconds) * 1000 - Date.now()));
    const done = await nextMessage<RateDone>(gen, 'done', (O.warmup + O.seconds) * 1000 + 120_000);
    clearTimeout(tA);
    clearTimeout(tB);
    cpuB ??= snapshot();
    const activity = sampler.stop();
    await sleep(3000); // the tail: the last batches (200 ms window), a slow relay run
    await waitUntil(async () => Number((await c.admin.query('SELECT count(*) AS n FROM event_outbox')).rows[0].n) === 0, 30_000, 'the outbox to drain');
    await sleep(500);

    // Commit times, stream times, relay runs.
    const logged = await c.admin.query<{ event_id: string; article_id: number; commit_ms: number }>(
      `SELECT event_id, article_id, extract(epoch FROM pg_xact_commit_timestamp(txid::xid)) * 1000 AS commit_ms
       FROM event_log WHERE event_id > $1 AND type = 'news.approved'`,
      [base],
    );
    const byArticle = new Map<number, { eventId: number; commit: number }>();
    for (const r of logged.rows) byArticle.set(r.article_id, { eventId: Number(r.event_id), commit: Number(r.commit_ms) });
    const streamKey = eventStreamKey(prefix);
    const entries = (await redis.xrange(streamKey, '-', '+')) as [string, string[]][];
    const xaddOf = new Map<number, number>();
    let streamDuplicates = 0;
    for (const [id, fields] of entries) {
      const e = fields.indexOf('e');
      const m = e >= 0 && e % 2 === 0 ? /"event_id":(\d+)/.exec(fields[e + 1] ?? '') : null;
      if (!m) continue;
      const eid = Number(m[1]);
      if (xaddOf.has(eid)) streamDuplicates++;
      else xaddOf.set(eid, Number(id.split('-')[0]));
    }
    clearInterval(collector);
    await collectJobs();
    const jobs = [...relayJobs.values()];

    interface Ev {
      eventId: number;
      commit: number;
      xadd: number;
      due: number;
      answered: number;
    }
    const window: Ev[] = [];
    const statuses: Record<string, number> = {};
    let notLogged = 0;
    for (let i = 0; i < done.rows.length; i++) {
      const [due, , answered, status] = done.rows[i];
      if (i < warmN) continue;
      statuses[status] = (statuses[status] ?? 0) + 1;
      const e = byArticle.get(ids[i]);
      if (!e) {
        notLogged++;
        continue;
      }
      window.push({ eventId: e.eventId, commit: e.commit, xadd: xaddOf.get(e.eventId) ?? 0, due, answered });
    }
    const winStart = t0 + O.warmup * 1000;
    const winEnd = t0 + (O.warmup + O.seconds) * 1000;
    const late = done.rows.slice(warmN).filter(([due, sent]) => sent - due > 20).length;

    const reports = await Promise.all(
      clientProcs.map((p) => {
        p.child.send({ cmd: 'report', events: window.map((e) => [e.eventId, e.commit, e.xadd]) });
        return nextMessage<ClientReport>(p, 'report', 120_000);
      }),
    );
    const anon = new MsHistogram();
    const staff = new MsHistogram();
    const all = new MsHistogram();
    const fromXadd = new MsHistogram();
    for (const r of reports) {
      anon.merge(r.commitToClient.anon, { negatives: 0, max: -Infinity });
      staff.merge(r.commitToClient.staff, { negatives: 0, max: -Infinity });
      all.merge(r.commitToClient.anon, { negatives: r.commitToClient.negatives, max: r.commitToClient.max });
      all.merge(r.commitToClient.staff, { negatives: 0, max: -Infinity });
      fromXadd.merge(r.xaddToClient.all, { negatives: r.xaddToClient.negatives, max: r.xaddToClient.max });
    }
    const first = window.map((_, k) => Math.min(...reports.map((r) => r.first[k] || Infinity)));
    const last = window.map((_, k) => Math.max(...reports.map((r) => r.last[k] || -Infinity)));
    const sorted = (xs: number[]) => xs.filter(Number.isFinite).sort((a, b) => a - b);
    const commitToXadd = sorted(window.filter((e) => e.xadd > 0).map((e) => e.xadd - e.commit));
    const xaddToFirst = sorted(window.map((e, k) => (e.xadd > 0 ? first[k] - e.xadd : NaN)));
    const xaddToLast = sorted(window.map((e, k) => (e.xadd > 0 ? last[k] - e.xadd : NaN)));
    const commitToFirst = sorted(window.map((e, k) => first[k] - e.commit));
    const commitToLast = sorted(window.map((e, k) => last[k] - e.commit));
    const commitToResponse = sorted(window.filter((e) => e.answered > 0).map((e) => e.answered - e.commit));
    const requestLatency = sorted(window.filter((e) => e.answered > 0).map((e) => e.answered - e.due));

    // Relay runs (BullMQ keeps the last 1000 completed relay-events jobs): which run sent each event.
    // The runs between the first and the last commit of the measured events (commits lag their due times when the web falls behind).
    const commitSpan = window.map((e) => e.commit).sort((x, y) => x - y);
    const spanStart = commitSpan[0];
    const spanEnd = commitSpan[commitSpan.length - 1];
    const inWindow = jobs.filter((j) => j.finishedOn! >= spanStart && j.processedOn! <= spanEnd + 1000);
    const woken = inWindow.filter((j) => (j.opts as { deduplication?: { id?: string } }).deduplication?.id === RELAY_WAKE_ID);
    const sweeps = inWindow.filter((j) => j.repeatJobKey);
    const byStart = [...jobs].sort((a, b) => a.processedOn! - b.processedOn!);
    const runStartToXadd: number[] = [];
    const commitToRunStart: number[] = [];
    let sentBySweep = 0;
    let sentByRunningLoop = 0;
    let attributed = 0;
    for (const e of window) {
      if (!e.xadd) continue;
      // The run that was active at the XADD (ms clocks: 1 ms slack); the latest-started if several.
      let run: (typeof byStart)[number] | undefined;
      for (const j of byStart) if (j.processedOn! <= e.xadd + 1 && j.finishedOn! >= e.xadd - 1) run = j;
      if (!run) continue;
      attributed++;
      if (run.repeatJobKey) sentBySweep++;
      if (run.processedOn! < e.commit) sentByRunningLoop++;
      else commitToRunStart.push(run.processedOn! - e.commit);
      runStartToXadd.push(e.xadd - run.processedOn!);
    }
    commitToRunStart.sort((a, b) => a - b);
    runStartToXadd.sort((a, b) => a - b);
    const pickup = sorted(woken.map((j) => j.processedOn! - j.timestamp));
    const runMs = sorted(inWindow.map((j) => j.finishedOn! - j.processedOn!));
    const perRun = sorted(inWindow.map((j) => Number((j.returnvalue as { relayed?: number } | null)?.relayed ?? 0)));
    const runsPerS = inWindow.length / ((spanEnd - spanStart) / 1000);
    const jobsCover = jobs.length > 0 ? Math.min(...jobs.map((j) => j.processedOn!)) : NaN;

    const delivered = reports.reduce((s, r) => s + r.delivered, 0);
    const missing = reports.reduce((s, r) => s + r.missing, 0);
    const dups = reports.reduce((s, r) => s + r.duplicates, 0);
    const reconciles = reports.reduce((s, r) => s + r.reconciles, 0);
    const closes = reports.reduce((s, r) => s + r.closes, 0);
    const a = cpuA as ReturnType<typeof snapshot> | null;
    const b = cpuB as ReturnType<typeof snapshot>;
    const pctOf = (ticks: number) => f((ticks / TICKS_PER_S / ((b.at - a!.at) / 1000)) * 100, 0);
    const ours = a ? Object.keys(b.s).reduce((sum, k) => sum + (b.s[k] - a.s[k]), 0) : NaN;
    const cpuLine = a
      ? Object.keys(b.s)
          .map((k) => `${k} ${pctOf(b.s[k] - a.s[k])} %`)
          .join(', ') +
        `; whole machine ${pctOf(b.machine.busy - a.machine.busy)} % of ${os.cpus().length * 100} %, of which processes outside this benchmark ${pctOf(b.machine.busy - a.machine.busy - ours)} %`
      : 'n/a';
    const commitRate = (commitSpan.length - 1) / ((spanEnd - spanStart) / 1000);
    const answeredInWindow = done.rows.filter(([, , at]) => at >= winStart && at < winEnd).length / O.seconds;
    const q = (h: MsHistogram, p: number) => ms(h.quantile(p));
    const line = (label: string, xs: number[]) =>
      `   ${label.padEnd(52)} p50 ${ms(pct(xs, 0.5)).padStart(7)}   p99 ${ms(pct(xs, 0.99)).padStart(7)}   max ${ms(xs[xs.length - 1]).padStart(7)}`;
    const p99 = all.quantile(0.99);
    const goalMs = batch.ms + 100;

    out();
    out(`1. End-to-end latency, commit -> WebSocket client (${os.cpus().length} CPUs shared by every process below)`);
    out(`   path: POST /api/v1/news/:id/approve -> web process -> COMMIT (article + news.approved in event_log/event_outbox)`);
    out(`         -> worker process (waker's outbox probe every 20 ms -> BullMQ relay-events -> relayBatch: claim, XADD) -> Redis stream`);
    out(
      `         -> ws process (XREAD; frames every WS_BATCH_MS ${batch.ms} ms or WS_BATCH_MAX ${batch.max} events) -> ${open} clients (${open - staffOpen} anonymous, ${staffOpen} staff)`,
    );
    out(`         in ${O.clientProcs} client processes`);
    out(`         ${O.clock ? 'clock process running (relay sweep every 2 s)' : 'no clock process (--no-clock): no relay sweep'}`);
    out(`   load: ${O.rate} approvals/s open loop (due times fixed in advance, at most ${O.connections} connections) for ${O.seconds} s after ${O.warmup} s warm-up;`);
    out(`         ${window.length} events measured x ${open} clients`);
    out(`   commit time: pg_xact_commit_timestamp(event_log.txid) (track_commit_timestamp = on: PostgreSQL's clock when it wrote the commit`);
    out(`   record; not recorded_at, which is now() = transaction start). Receive time: Date.now() in the client process at the frame's`);
    out(`   message event. Same machine, same system clock; 1 ms resolution.`);
    out(`   latency over all (client, event) pairs:  p50 ${q(all, 0.5)}  p90 ${q(all, 0.9)}  p99 ${q(all, 0.99)}  p99.9 ${q(all, 0.999)}  max ${ms(all.max)}`);
    out(`     anonymous clients: p50 ${q(anon, 0.5)}  p99 ${q(anon, 0.99)};  staff clients: p50 ${q(staff, 0.5)}  p99 ${q(staff, 0.99)}`);
    out(`   goal p99 < ${batch.ms} ms batch window + 100 ms = ${goalMs} ms: ${p99 < goalMs ? 'met' : 'NOT met'} (p99 ${ms(p99)}, ${f(p99 / goalMs, 2)}x the goal)`);
    out(
      `   delivered ${delivered} of ${delivered + missing} (client, event) pairs; ${dups} duplicate receipts, ${streamDuplicates} duplicate stream entries, ${reconciles} reconcile frames, ${closes} unexpected closes, ${failed} failed connects, ${all.negatives} negative latencies`,
    );
    out(`   approvals: ${JSON.stringify(statuses)}${notLogged ? `, ${notLogged} without a logged event` : ''}; ${late} of ${window.length} sent > 20 ms after their due time`);
    out(`   achieved: the measured events committed at ${f(commitRate)}/s (first to last commit), responses in the window ${f(answeredInWindow)}/s (offered ${O.rate}/s)`);
    out(
      `   web's PostgreSQL backends in the window (mean of ${activity.samples} samples of pg_stat_activity): ${f(activity.running, 2)} running, ${f(activity.advisoryLock, 2)} waiting for an advisory lock`,
    );
    out(`     (at least one waiting in ${f(activity.lockContended * 100, 0)} % of samples),`);
    out(
      `     ${f(activity.otherLock, 2)} for another lock, ${f(activity.otherWait, 2)} other waits (I/O, LWLock), ${f(activity.idleInTx, 2)} idle in transaction (waiting for the web process)`,
    );
    out(
      `     event writers in flight (event id drawn -> COMMIT): none in ${f(activity.holder.none * 100, 0)} % of samples, one running a statement in ${f(activity.holder.active * 100, 0)} %,`,
    );
    out(`     one idle in its transaction (waiting for its client's COMMIT) in ${f(activity.holder.idleInTx * 100, 0)} %`);
    out(`   where the time goes (per event, ms clocks):`);
    out(line('commit -> XADD (outbox probe, waker, BullMQ, relay pass)', commitToXadd));
    out(line('XADD -> first client (XREAD, batch wait, first write)', xaddToFirst));
    out(line('XADD -> last client (+ fan-out to every socket)', xaddToLast));
    out(
      `   ${'XADD -> client, all (client, event) pairs'.padEnd(52)} p50 ${ms(fromXadd.quantile(0.5)).padStart(7)}   p99 ${ms(fromXadd.quantile(0.99)).padStart(7)}   max ${ms(fromXadd.max).padStart(7)}`,
    );
    out(line('commit -> first client', commitToFirst));
    out(line('commit -> last client', commitToLast));
    out(line('commit -> HTTP response at the load generator', commitToResponse));
    out(line('approval request latency (due -> response)', requestLatency));
    out(
      `   relay runs in the window (BullMQ's records of completed relay-events jobs, collected every 3 s${Number.isFinite(jobsCover) && jobsCover > spanStart ? `; from ${f((jobsCover - spanStart) / 1000)} s into the window` : ''}):`,
    );
    out(
      `     ${inWindow.length} runs (${f(runsPerS)}/s): ${woken.length} woken by the waker, ${sweeps.length} sweeps; events per run p50 ${f(pct(perRun, 0.5), 0)}, p99 ${f(pct(perRun, 0.99), 0)}; run time p50 ${ms(pct(runMs, 0.5))}, p99 ${ms(pct(runMs, 0.99))}`,
    );
    out(`     woken runs, added -> started (BullMQ pickup, incl. waiting behind the active run): p50 ${ms(pct(pickup, 0.5))}, p99 ${ms(pct(pickup, 0.99))}`);
    out(`     of ${attributed} events matched to their run: ${sentByRunningLoop} sent by a run already going at their commit (a later pass), ${sentBySweep} by a sweep;`);
    out(`     events whose run started after their commit: commit -> run start p50 ${ms(pct(commitToRunStart, 0.5))}, p99 ${ms(pct(commitToRunStart, 0.99))};`);
    out(`     all matched events: run start -> XADD p50 ${ms(pct(runStartToXadd, 0.5))}, p99 ${ms(pct(runStartToXadd, 0.99))}`);
    out(`   CPU during the measured window (100 % = one core): ${cpuLine}`);

    for (const p of clientProcs) p.child.send({ cmd: 'close' });
    return { p99, rate: commitRate, goalMs };
  } finally {
    for (const h of helpers) {
      if (h.child.connected) h.child.disconnect();
      await waitExit(h, 5000);
    }
    // Clock first (no new sweeps), then web (no new events), ws, worker last.
    for (const name of ['clock', 'web', 'ws', 'worker']) await procs.find((p) => p.name === name)?.stop();
    await queue.close();
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Figure 2: relay throughput

const TYPES = ['news.submitted', 'news.approved', 'news.submitted', 'news.approved', 'article.edited'] as const;

/** Event i: 40 % news.submitted, 40 % news.approved, 20 % article.edited, over 20,000 articles in a scattered order. */
function fillEvent(i: number): EventInput {
  const type = TYPES[i % TYPES.length];
  const articleId = 1 + ((i * 7919) % 20_000);
  if (type === 'article.edited') return internalEvent('article.edited', articleId, { reason: 'edit', fields: ['headline'] });
  return newsEvent({
    type,
    id: articleId,
    slug: `bench-relay-story-${articleId}`,
    status: type === 'news.approved' ? 'approved' : 'submitted',
    headline: `Bench relay story ${articleId}: Arbitrum governance proposal passes`,
    date_posted: new Date().toISOString(),
    origin: 'manual',
    ...(type === 'news.approved' ? { previous_status: 'submitted' } : {}),
    sponsored: null,
  });
}

async function fillOutbox(db: Db, n: number): Promise<number> {
  const t0 = performance.now();
  for (let from = 0; from < n; from += 500) {
    const batch = Array.from({ length: Math.min(500, n - from) }, (_, k) => fillEvent(from + k));
    await db.transaction().execute((trx) => recordEvents(trx, batch));
  }
  return n / ((performance.now() - t0) / 1000);
}

async function drain(c: Ctx, prefix: string, relays: number): Promise<{ perS: number; relayed: number; passes: number; ms: number; cpu: string }> {
  const procs = Array.from({ length: relays }, () => forkHelper('relay-drain.ts', [c.databaseUrl, c.redisUrl, prefix, '100000']));
  try {
    await Promise.all(procs.map((p) => nextMessage(p, 'ready', 60_000)));
    const done = Promise.all(procs.map((p) => nextMessage<{ relayed: number; passes: number; startedAt: number; finishedAt: number }>(p, 'done', 600_000)));
    const snap = () => ({
      at: Date.now(),
      relays: procs.reduce((s, p) => s + cpuTicks(p.pid), 0),
      pg: c.pgPid ? c.pgCpu!.ticks() : NaN,
      redis: c.redisPid ? cpuTicks(c.redisPid) : NaN,
      machine: machineTicks().busy,
    });
    const s0 = snap();
    for (const p of procs) p.child.send({ cmd: 'go' });
    const r = await done;
    const s1 = snap();
    const cpuPct = (t: number) => f((t / TICKS_PER_S / ((s1.at - s0.at) / 1000)) * 100, 0);
    const ours = s1.relays - s0.relays + (s1.pg - s0.pg || 0) + (s1.redis - s0.redis || 0);
    const cpu = `CPU: relays ${cpuPct(s1.relays - s0.relays)} %, postgres ${cpuPct(s1.pg - s0.pg)} %, redis ${cpuPct(s1.redis - s0.redis)} %, others ${cpuPct(s1.machine - s0.machine - ours)} %`;
    const wall = Math.max(...r.map((x) => x.finishedAt)) - Math.min(...r.map((x) => x.startedAt));
    const relayed = r.reduce((s, x) => s + x.relayed, 0);
    const left = Number((await c.admin.query('SELECT count(*) AS n FROM event_outbox')).rows[0].n);
    if (left !== 0) throw new Error(`${left} events left in the outbox after the drain`);
    return { perS: relayed / (wall / 1000), relayed, passes: r.reduce((s, x) => s + x.passes, 0), ms: wall, cpu };
  } finally {
    for (const p of procs) if (p.child.connected) p.child.send({ cmd: 'close' });
    await Promise.all(procs.map((p) => waitExit(p, 10_000)));
  }
}

async function relayFigure(c: Ctx): Promise<{ one: number; two: number }> {
  const prefix = `bev${process.pid}r`;
  const results: Record<1 | 2, number[]> = { 1: [], 2: [] };
  const fills: number[] = [];
  const details: string[] = [];
  const depth0 = Number((await c.admin.query('SELECT count(*) AS n FROM event_outbox')).rows[0].n);
  if (depth0 !== 0) throw new Error(`the outbox holds ${depth0} events before the relay figure`);
  for (let round = 0; round < O.relayRounds; round++) {
    for (const relays of (round % 2 === 0 ? [1, 2] : [2, 1]) as (1 | 2)[]) {
      // Not timed: every drain starts from a vacuumed outbox, as a steady state with autovacuum would.
      await c.admin.query('VACUUM ANALYZE event_outbox');
      await c.admin.query('VACUUM ANALYZE event_log');
      log(`relay: recording ${O.relayEvents} events, then draining with ${relays} relay process${relays > 1 ? 'es' : ''}`);
      fills.push(await fillOutbox(c.db, O.relayEvents));
      const r = await drain(c, prefix, relays);
      results[relays].push(r.perS);
      details.push(`${relays}: ${f(r.perS, 0)}/s (${r.relayed} in ${f(r.ms / 1000, 2)} s, ${r.passes} passes; ${r.cpu})`);
    }
  }
  const one = median(results[1]);
  const two = median(results[2]);
  out();
  out(`2. Relay throughput: ${O.relayEvents} events in the outbox, drained by relayUntilEmpty (${RELAY_BATCH} events per pass: claim FOR UPDATE SKIP LOCKED,`);
  out(`   XADD pipeline, feed-cache INCR, DELETE, commit) in separate processes with their own pools, started together; no BullMQ, no web load`);
  out(`   events: 40 % news.submitted, 40 % news.approved, 20 % article.edited (internal: not XADDed) over 20,000 articles; filled with`);
  out(
    `   recordEvents in transactions of 500 at ${f(median(fills), 0)} events/s (median); ${O.relayRounds} round${O.relayRounds > 1 ? 's' : ''} of (1, 2) relays, alternated, outbox vacuumed before each`,
  );
  out(`   runs (CPU in % of one core during the drain; "others": processes outside this benchmark):`);
  for (const d of details) out(`     ${d}`);
  out(`   1 relay process:   ${f(one, 0).padStart(6)} events/s (median)`);
  out(`   2 relay processes: ${f(two, 0).padStart(6)} events/s (median), ${f(two / one, 2)}x one`);
  out(`   goal >= 5000 events/s with two: ${two >= 5000 ? 'met' : 'NOT met'}`);
  return { one, two };
}

// ---------------------------------------------------------------------------------------------
// Figure 3: what the outbox adds to a submission

interface RunFigures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  webUs: number;
  pgWebUs: number;
  serverUs: number;
  pgAllUs: number;
  redisUs: number;
  relayUs: number;
  relayNodeUs: number;
  relayPgUs: number;
  /** Mean number of the servers' PostgreSQL backends waiting for an advisory lock / in total active or idle in a transaction. */
  advisoryWaits: number;
  /** Share of samples with an event writer in flight, and with one idle in its transaction. */
  lockHeld: number;
  lockHeldIdle: number;
  busy: number;
  /** CPU used by processes outside this benchmark during the run, % of one core. */
  othersPct: number;
}

async function submitFigure(c: Ctx): Promise<{ closed: number; rate: number; alone: number }> {
  const prefix = `bev${process.pid}s`;
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: c.databaseUrl,
    REDIS_URL: c.redisUrl,
    QUEUE_PREFIX: prefix,
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    SESSION_DAILY_QUOTA: '1000000000',
    ANON_DAILY_QUOTA: '1000000000',
    DATA_DIR: path.join(c.tmp, 'data'),
  });
  // As src/bin/web.ts builds them; one pool and one Redis connection shared by both apps.
  const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX, applicationName: 'bench-web' });
  const redis = createRedis(config.REDIS_URL, 'command', 'bench-web', { autoPipelining: true });
  const queue = new QueueClient(jobs, redis, config.REDIS_URL, prefix);
  const deps = {
    config,
    log: createLogger('bench-web', config.LOG_LEVEL),
    db,
    redis,
    queue,
    events: new EventPublisher(redis, eventStreamKey(prefix), config.EVENT_STREAM_MAXLEN),
  };
  const appA = createApp(deps, allRoutes(deps));
  const appB = createApp(
    deps,
    allRoutes(deps).map((r) => (r.operationId === 'submitArticle' ? baselineSubmitRoute(deps) : r)),
  );
  const servers: http.Server[] = [];
  const listen = async (app: Koa) => {
    const { origin, server } = await listenLocal(app, { keepAliveTimeoutMs: 65_000 });
    servers.push(server);
    return origin;
  };
  const origins = { A: await listen(appA), B: await listen(appB) };
  const token = await signAccessToken(JWT_SECRET, { userId: c.users.submitter, address: '0x' + 'a'.repeat(40), roles: [] });
  const headers = { authorization: `Bearer ${token}` };
  const worker = startService('worker', {
    NODE_ENV: 'production',
    DATABASE_URL: c.databaseUrl,
    REDIS_URL: c.redisUrl,
    QUEUE_PREFIX: prefix,
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(c.tmp, 'data'),
  });
  const gen = forkHelper('post-load.ts');
  const runs: Record<'closed' | 'rate', Record<'A' | 'B', RunFigures[]>> = { closed: { A: [], B: [] }, rate: { A: [], B: [] } };
  const alone: Record<'A' | 'B', { nodeUs: number; pgUs: number; redisUs: number; wallUs: number }[]> = { A: [], B: [] };
  try {
    await wakerProbing(c.admin);
    await nextMessage(gen, 'ready');
    let tagN = 0;
    /** One run; returns requests, req/s and latency percentiles (ms). */
    const load = async (mode: 'closed' | 'rate', which: 'A' | 'B', seconds: number) => {
      const tag = `${which}${tagN++}-${process.pid}`;
      if (mode === 'closed') {
        const run = nextMessage<ClosedDone>(gen, 'done', (seconds + 60) * 1000);
        gen.child.send({ cmd: 'closed', url: `${origins[which]}/api/v1/news/post`, seconds, concurrency: O.submitConcurrency, headers, tag } satisfies ClosedCmd);
        const r = await run;
        if (r.errors || (r.statuses['201'] ?? 0) !== r.requests) throw new Error(`${which}: ${JSON.stringify(r.statuses)}, ${r.errors} errors`);
        return { requests: r.requests, rps: r.rps, p50: r.p50, p99: r.p99 };
      }
      const n = Math.round(seconds * O.submitRate);
      const run = nextMessage<RateDone>(gen, 'done', (seconds + 60) * 1000);
      gen.child.send({
        cmd: 'rate',
        base: origins[which],
        paths: Array.from({ length: n }, () => '/api/v1/news/post'),
        rate: O.submitRate,
        headers,
        connections: 64,
        bodyTag: tag,
      } satisfies RateCmd);
      const r = await run;
      const bad = r.rows.filter((x) => x[3] !== 201);
      if (bad.length) throw new Error(`${which}: ${bad.length} requests not 201 (${bad[0][3]})`);
      // Latency from the due time: a request that had to wait for a connection counts its wait.
      const lat = r.rows.map(([due, , at]) => at - due).sort((a, b) => a - b);
      const span = (Math.max(...r.rows.map((x) => x[2])) - r.t0) / 1000;
      return { requests: n, rps: n / span, p50: pct(lat, 0.5), p99: pct(lat, 0.99) };
    };
    const outboxEmpty = () => waitUntil(async () => Number((await c.admin.query('SELECT count(*) AS n FROM event_outbox')).rows[0].n) === 0, 60_000, 'the outbox to drain');
    const measure = async (mode: 'closed' | 'rate', which: 'A' | 'B'): Promise<RunFigures> => {
      const cpu0 = process.cpuUsage();
      const be0 = await backendCpu(c.admin);
      const pg0 = c.pgPid ? c.pgCpu!.ticks() : NaN;
      const redis0 = c.redisPid ? cpuTicks(c.redisPid) : NaN;
      const worker0 = cpuTicks(worker.pid);
      // Every process of this benchmark: this one (servers), the load generator, the worker, PostgreSQL, Redis.
      const oursNow = () => cpuTicks(process.pid) + cpuTicks(gen.pid) + cpuTicks(worker.pid) + (c.pgPid ? c.pgCpu!.ticks() : 0) + (c.redisPid ? cpuTicks(c.redisPid) : 0);
      const m0 = machineTicks();
      const ours0 = oursNow();
      const sampler = new ActivitySampler(c.admin, 'bench-web');
      sampler.start();
      const t0 = Date.now();
      const r = await load(mode, which, O.submitSeconds);
      const cpu = process.cpuUsage(cpu0);
      const activity = sampler.stop();
      const m1 = machineTicks();
      const wallS = (Date.now() - t0) / 1000;
      const oursTicks = oursNow() - ours0;
      const be1 = await backendCpu(c.admin);
      // The relay's share: A's events are relayed after the load stops too; count until the outbox is empty.
      await outboxEmpty();
      await sleep(200);
      const be2 = await backendCpu(c.admin);
      const pgAll = c.pgPid ? (c.pgCpu!.ticks() - pg0) / TICKS_PER_S : NaN;
      const redisS = c.redisPid ? (cpuTicks(c.redisPid) - redis0) / TICKS_PER_S : NaN;
      const workerS = (cpuTicks(worker.pid) - worker0) / TICKS_PER_S;
      const web = backendCpuDelta(be0, be1);
      const relay = backendCpuDelta(be0, be2);
      const relayPg = (relay.get('worker') ?? 0) + (relay.get('relay-waker') ?? 0);
      const us = (s: number) => (s * 1e6) / r.requests;
      return {
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        requests: r.requests,
        webUs: (cpu.user + cpu.system) / r.requests,
        pgWebUs: us(web.get('bench-web') ?? 0),
        serverUs: (cpu.user + cpu.system) / r.requests + us(web.get('bench-web') ?? 0),
        pgAllUs: us(pgAll),
        redisUs: us(redisS),
        relayUs: us(workerS + relayPg),
        relayNodeUs: us(workerS),
        relayPgUs: us(relayPg),
        advisoryWaits: activity.advisoryLock,
        lockHeld: (activity.holder.active + activity.holder.idleInTx) * 100,
        lockHeldIdle: activity.holder.idleInTx * 100,
        busy: activity.running + activity.advisoryLock + activity.otherLock + activity.otherWait + activity.idleInTx,
        othersPct: Math.max(0, ((m1.busy - m0.busy - oursTicks) / TICKS_PER_S / wallS) * 100),
      };
    };
    log(`submit: warm-up, then ${O.submitRuns} x (A, B) runs of ${O.submitSeconds} s at ${O.submitConcurrency} connections, and as many at ${O.submitRate} requests/s`);
    for (const which of ['A', 'B'] as const) {
      await load('closed', which, quick ? 1 : 2);
      await outboxEmpty();
    }
    for (const mode of ['closed', 'rate'] as const) {
      for (let i = 0; i < O.submitRuns; i++) {
        for (const which of ['A', 'B'] as const) runs[mode][which].push(await measure(mode, which));
      }
    }
    // c) The write alone, no HTTP, no concurrency, no relay running: one connection, blocks of 200
    // submissions, alternated. A leaves its events in the outbox (nothing relays them any more).
    await worker.stop();
    log(`submit: the database write alone, ${O.submitRuns} x (A, B) blocks of 200 submissions on one connection`);
    const one = createDb(config.DATABASE_URL, { max: 1, applicationName: 'bench-one' });
    try {
      let k = 0;
      const input = () => {
        const url = `https://bench-submit.example/one-${process.pid}/${k++}`;
        return {
          url,
          normalizedUrl: normalizeUrl(url)!,
          headline: `Bench submission ${k}`,
          headlineSource: 'supplied' as const,
          source: 'bench-submit.example',
          userId: c.users.submitter,
        };
      };
      const submitA = async () => {
        await insertSubmission(one, input());
      };
      const submitB = async () => {
        const r = await insertSubmission(one, input(), 'none');
        await invalidateFeedCache(deps.redis, config.QUEUE_PREFIX);
        await deps.events.publish(articleEvent('news.submitted', r.created!));
      };
      for (let i = 0; i < 50; i++) {
        await submitA();
        await submitB();
      }
      for (let i = 0; i < O.submitRuns; i++) {
        for (const which of ['A', 'B'] as const) {
          const n = 200;
          const cpu0 = process.cpuUsage();
          const be0 = await backendCpu(c.admin);
          const redis0 = c.redisPid ? cpuTicks(c.redisPid) : NaN;
          const t0 = performance.now();
          for (let j = 0; j < n; j++) await (which === 'A' ? submitA() : submitB());
          const wall = performance.now() - t0;
          const cpu = process.cpuUsage(cpu0);
          const pgS = backendCpuDelta(be0, await backendCpu(c.admin)).get('bench-one') ?? 0;
          const redisS = c.redisPid ? (cpuTicks(c.redisPid) - redis0) / TICKS_PER_S : NaN;
          alone[which].push({ nodeUs: (cpu.user + cpu.system) / n, pgUs: (pgS * 1e6) / n, redisUs: (redisS * 1e6) / n, wallUs: (wall * 1000) / n });
        }
      }
    } finally {
      await one.destroy();
    }
  } finally {
    if (gen.child.connected) gen.child.disconnect();
    await waitExit(gen, 5000);
    await worker.stop();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    await queue.close();
    redis.disconnect();
    await db.destroy();
  }
  out();
  out(`3. Cost of the outbox on a submission: POST /api/v1/news/post {url, headline} (headline supplied: no page-title wait)`);
  out(`   A outbox (today): insertSubmission = advisory lock on the URL, duplicate check, INSERT article with its event_log + event_outbox`);
  out(`     rows (INSERT ... SELECT FROM event_log_record1: id drawn, shared writer locks) in one transaction; nothing after it.`);
  out(`     The worker relays the events.`);
  out(`   B baseline path (scripts/bench/lib/submission-baseline.ts): the same transaction without recordEvents, then`);
  out(`     INCR (feed cache) + XADD (news.submitted) after the commit, in the request.`);
  out(`   Both: the real createApp() in this process (auth, quota, validation), one pool (${config.DB_POOL_MAX}) and one auto-pipelined Redis connection,`);
  out(`   a worker process running; load from a separate process; ${O.submitRuns} alternated runs (A B A B ...) of ${O.submitSeconds} s per mode, medians.`);
  out(`   CPU from /proc; PostgreSQL backends by application_name. "Server time" = this process's CPU + its PostgreSQL backends' CPU,`);
  out(`   per request. The relay row is the worker process and its backends until the outbox is empty again, per request.`);
  const ratios = { closed: NaN, rate: NaN, alone: NaN };
  for (const mode of ['closed', 'rate'] as const) {
    const m = (w: 'A' | 'B', k: keyof RunFigures) => median(runs[mode][w].map((r) => r[k]));
    const row = (label: string, k: keyof RunFigures, unit: string, d = 0) =>
      `   ${label.padEnd(48)} ${(f(m('A', k), d) + unit).padStart(10)} ${(f(m('B', k), d) + unit).padStart(10)} ${(m('B', k) ? f(m('A', k) / m('B', k), 2) + 'x' : '').padStart(7)}`;
    out();
    out(
      mode === 'closed'
        ? `   a) closed loop, ${O.submitConcurrency} keep-alive connections (latency under the same concurrency):`
        : `   b) open loop at ${O.submitRate} requests/s (below both capacities; latency from each request's due time):`,
    );
    out(`   ${''.padEnd(48)} ${'A outbox'.padStart(10)} ${'B before'.padStart(10)} ${'A/B'.padStart(7)}`);
    out(row('requests/s', 'rps', '', 0));
    out(row('latency p50', 'p50', ' ms', 2));
    out(row('latency p99', 'p99', ' ms', 2));
    out(row('web process CPU per request', 'webUs', ' µs'));
    out(row("its PostgreSQL backends' CPU per request", 'pgWebUs', ' µs'));
    out(row('server time per request (the two above)', 'serverUs', ' µs'));
    out(row('all PostgreSQL processes, per request', 'pgAllUs', ' µs'));
    out(row('redis-server CPU per request', 'redisUs', ' µs'));
    out(row('relay: worker + its backends, per request', 'relayUs', ' µs'));
    out(row('  of which the worker process (BullMQ, waker)', 'relayNodeUs', ' µs'));
    out(row('  of which its PostgreSQL backends', 'relayPgUs', ' µs'));
    out(row('backends waiting for an advisory lock (mean)', 'advisoryWaits', '', 2));
    out(row('event writer in flight (% of samples)', 'lockHeld', ' %', 0));
    out(row('  by a backend idle in its transaction', 'lockHeldIdle', ' %', 0));
    out(row('backends in a transaction or query (mean)', 'busy', '', 2));
    out(row('CPU of processes outside the benchmark', 'othersPct', ' %', 0));
    for (const w of ['A', 'B'] as const) out(`   runs ${w}: ${runs[mode][w].map((r) => `${f(r.rps, 0)}/s p50 ${f(r.p50, 1)} ms ${f(r.serverUs, 0)} µs`).join(' | ')}`);
    ratios[mode] = m('A', 'serverUs') / m('B', 'serverUs');
    const lat = m('A', 'p50') / m('B', 'p50');
    out(
      `   goal under 10 % more server time: ${ratios[mode] < 1.1 ? 'met' : 'NOT met'} (server time +${f((ratios[mode] - 1) * 100, 1)} %, latency p50 +${f((lat - 1) * 100, 1)} %)`,
    );
  }
  {
    type K = 'nodeUs' | 'pgUs' | 'redisUs' | 'wallUs';
    const m = (w: 'A' | 'B', k: K) => median(alone[w].map((r) => r[k]));
    const row = (label: string, a: number, b: number, unit: string) =>
      `   ${label.padEnd(48)} ${(f(a, 0) + unit).padStart(10)} ${(f(b, 0) + unit).padStart(10)} ${(b ? f(a / b, 2) + 'x' : '').padStart(7)}`;
    out();
    out(`   c) the write alone: insertSubmission (A) vs the baseline transaction + INCR + XADD (B), called directly on one connection,`);
    out(`      no HTTP, no concurrency, no relay running; ${O.submitRuns} alternated blocks of 200 submissions, medians per submission:`);
    out(`   ${''.padEnd(48)} ${'A outbox'.padStart(10)} ${'B before'.padStart(10)} ${'A/B'.padStart(7)}`);
    out(row('this process (Kysely, pg, ioredis) CPU', m('A', 'nodeUs'), m('B', 'nodeUs'), ' µs'));
    out(row('its PostgreSQL backend CPU', m('A', 'pgUs'), m('B', 'pgUs'), ' µs'));
    out(row('server time (the two above)', m('A', 'nodeUs') + m('A', 'pgUs'), m('B', 'nodeUs') + m('B', 'pgUs'), ' µs'));
    out(row('redis-server CPU', m('A', 'redisUs'), m('B', 'redisUs'), ' µs'));
    out(row('wall time per submission', m('A', 'wallUs'), m('B', 'wallUs'), ' µs'));
    ratios.alone = (m('A', 'nodeUs') + m('A', 'pgUs')) / (m('B', 'nodeUs') + m('B', 'pgUs'));
  }
  return ratios;
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-events-'));
  const started: RunningService[] = [];
  let admin: pg.Client | null = null;
  let rootAdmin: pg.Client | null = null;
  let db: Db | null = null;
  const dbName = `squid_bench_events_${process.pid}`;
  const t0 = Date.now();
  try {
    const backing = await backingServices(tmp, started, { log, pgSettings: { track_commit_timestamp: 'on' } });
    const { adminUrl, redisUrl } = backing;
    const pgPid = backing.postgres?.pid ?? null;
    const redisPid = backing.redis?.pid ?? null;
    rootAdmin = new pg.Client({ connectionString: adminUrl });
    rootAdmin.on('error', () => undefined);
    await rootAdmin.connect();
    const tcts = (await rootAdmin.query('SHOW track_commit_timestamp')).rows[0].track_commit_timestamp;
    if (tcts !== 'on' && only.has('latency')) throw new Error('the latency figure needs track_commit_timestamp = on (ALTER SYSTEM SET track_commit_timestamp = on; restart)');
    await rootAdmin.query(`CREATE DATABASE ${dbName}`);
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    const databaseUrl = u.toString();
    db = createDb(databaseUrl, { max: 4, applicationName: 'bench' });
    await migrateToLatest(db);
    admin = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-admin' });
    admin.on('error', () => undefined);
    await admin.connect();
    const user = async (addr: string, roles: string[]) =>
      (
        await db!
          .insertInto('users')
          .values({ wallet_address: addr, username: `bench_${roles[0] ?? 'user'}`, roles })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const users = { editor: await user('0x' + 'e'.repeat(40), ['editor']), staff: await user('0x' + '5'.repeat(40), ['staff']), submitter: await user('0x' + 'a'.repeat(40), []) };
    const c: Ctx = { databaseUrl, redisUrl, pgPid, pgCpu: pgPid ? new TreeMeter(pgPid) : null, redisPid, db, admin, tmp, users };

    const version = (await admin.query('SHOW server_version')).rows[0].server_version;
    const settings = (
      await admin.query(
        `SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) AS s FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'track_commit_timestamp', 'shared_buffers')`,
      )
    ).rows[0].s;
    let rev = '';
    try {
      rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
      const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'jobs', 'db'], { cwd: repoRoot, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(3));
      if (dirty.length) rev += ` + uncommitted changes in ${dirty.join(', ')}`;
    } catch {
      rev = 'unknown';
    }
    out(`event log benchmark${quick ? ' (--quick)' : ''}: code at ${rev}`);
    out(
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')} at start; Node ${process.version}`,
    );
    out(`PostgreSQL ${version} (${settings}${pgPid ? ', started by this run' : ', DATABASE_URL'}); Redis ${redisPid ? 'started by this run' : 'REDIS_URL'}`);

    const goals: string[] = [];
    if (only.has('latency')) {
      const r = await latencyFigure(c);
      goals.push(`1. latency p99 ${ms(r.p99)} at ${f(r.rate)} events/s committed (${O.rate}/s offered) (goal < ${r.goalMs} ms): ${r.p99 < r.goalMs ? 'met' : 'NOT met'}`);
    }
    if (only.has('relay')) {
      const r = await relayFigure(c);
      goals.push(`2. relay ${f(r.two, 0)} events/s with two relays, ${f(r.one, 0)} with one (goal >= 5000 with two): ${r.two >= 5000 ? 'met' : 'NOT met'}`);
    }
    if (only.has('submit')) {
      const r = await submitFigure(c);
      goals.push(
        `3. submission server time with the outbox ${f(r.rate, 2)}x the previous path at ${O.submitRate}/s, ${f(r.closed, 2)}x at ${O.submitConcurrency} connections, ${f(r.alone, 2)}x for the write alone (goal < 1.10x): ${r.rate < 1.1 && r.closed < 1.1 ? 'met' : 'NOT met'}`,
      );
    }
    out();
    out('summary:');
    for (const g of goals) out(`   ${g}`);
    out(
      `   (total ${f((Date.now() - t0) / 1000, 0)} s, load average at the end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
  } finally {
    await admin?.end().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    if (rootAdmin) {
      await rootAdmin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await rootAdmin.end().catch(() => undefined);
    }
    for (const s of started.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[bench] failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
