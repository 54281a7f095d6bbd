/**
 * GET /api/v1/events/ under polling load: the service's handler against a baseline handler in the
 * same run. The service's handler reads the horizon through sharedEventHorizon (at most one
 * pg_locks read in flight per process; requests arriving meanwhile share the next one) and
 * pruned_through in the page's own statement; the baseline (below) reads the horizon, the page and
 * pruned_through in three round trips per request.
 *
 * Two polls, each at --connections keep-alive connections from a separate load process, runs
 * alternated, medians of --runs: `empty` (after = the newest event: the "nothing new" poll most
 * pollers make most of the time) and `page` (a full page of 100 events). Figures: req/s, p50/p99,
 * and the server's CPU per request (this process plus its PostgreSQL backends, from /proc).
 *
 *   npm run bench:events-api -- [--events 20000] [--connections 50] [--seconds 5] [--runs 3]
 */
import { parseArgs } from 'node:util';
import type Koa from 'koa';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { eventHorizon, internalEvent, oldestEventId, prunedThrough, recordEventsCommitted, type EventInput } from '../../src/platform/events/log.js';
import { allRoutes } from '../../src/routes.js';
import type { RouteDef } from '../../src/platform/http/route.js';
import { DomainError } from '../../src/platform/errors/index.js';
import { publicEventTypes } from '../../src/platform/events/events.js';
import type { Db } from '../../src/platform/db.js';
import pg from 'pg';
import { benchLog, benchStack, listenLocal, median } from './lib/bench-stack.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { backendCpu, backendCpuDelta } from './lib/pg-activity.js';

const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(a.events);
const CONNECTIONS = Number(a.connections);
const SECONDS = Number(a.seconds);
const RUNS = Number(a.runs);

/** The baseline handler: horizon, page and pruned_through, one round trip each (no shared horizon read). */
function baselineListEvents(today: RouteDef, db: Db): RouteDef {
  return {
    ...today,
    async handler(ctx, { query }: { query: { after: number; limit: number; types?: string[] } }) {
      const { after, limit } = query;
      const types = (query.types ?? publicEventTypes) as string[];
      const { horizon } = await eventHorizon(db);
      const r = await sql<{ event_id: number; payload: string }>`
        SELECT event_id, payload::text AS payload FROM event_log
        WHERE event_id > ${after} AND event_id <= ${horizon} AND type = ANY(${types}::text[]) AND visibility = ANY(${['public']}::text[])
        ORDER BY event_id LIMIT ${limit + 1}`.execute(db);
      const rows = r.rows.map((x) => ({ event_id: Number(x.event_id), payload: x.payload }));
      if (after > 0) {
        const pruned = await prunedThrough(db);
        if (after < pruned) throw new DomainError('events_expired', 'expired', { oldest_event_id: await oldestEventId(db), pruned_through: pruned });
      }
      const page = rows.slice(0, limit);
      ctx.type = 'application/json';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = `{"results":[${page.map((x) => x.payload).join(',')}],"next_after":${page.length ? page[page.length - 1].event_id : 'null'},"has_more":${rows.length > limit}}`;
    },
  };
}

async function main() {
  const stack = await benchStack('eventsapi');
  const { deps, db } = stack;
  const admin = new pg.Client({ connectionString: stack.config.DATABASE_URL });
  await admin.connect();
  try {
    benchLog(`recording ${EVENTS} events`);
    const ids: number[] = [];
    for (let i = 0; i < EVENTS; i += 1000) {
      const batch: EventInput[] = Array.from({ length: Math.min(1000, EVENTS - i) }, (_, k) => ({
        type: 'news.approved',
        articleId: i + k + 1,
        payload: { type: 'news.approved', id: i + k + 1, slug: `bench-${i + k}`, headline: `Event number ${i + k} of the pull benchmark`, status: 'approved' },
      }));
      ids.push(...(await recordEventsCommitted(db, batch)));
    }
    // An internal event last, so that `empty` polls after the newest public event scan nothing.
    await recordEventsCommitted(db, [internalEvent('article.edited', 1)]);
    await sql`ANALYZE event_log`.execute(db);
    const top = ids[ids.length - 1];
    const routes = allRoutes(deps);
    const today = routes.find((r) => r.operationId === 'listEvents')!;
    const apps: Record<string, Koa> = {
      today: createApp(deps, routes),
      previous: createApp(
        deps,
        routes.map((r) => (r === today ? baselineListEvents(today, db) : r)),
      ),
    };
    const origins: Record<string, string> = {};
    for (const [k, app] of Object.entries(apps)) origins[k] = (await listenLocal(app, { keepAliveTimeoutMs: 60_000 })).origin;
    const polls = { empty: `/api/v1/events/?after=${top}`, page: `/api/v1/events/?after=${top - 5000}&limit=100` };
    type Fig = LoadResult & { cpuUs: number; pgUs: number };
    const results: Record<string, Fig[]> = {};
    const measure = async (which: string, poll: keyof typeof polls): Promise<Fig> => {
      const be0 = await backendCpu(admin);
      const c0 = process.cpuUsage();
      const r = await loadFromChild(origins[which] + polls[poll], SECONDS, CONNECTIONS);
      const c1 = process.cpuUsage(c0);
      const be = backendCpuDelta(be0, await backendCpu(admin));
      if (r.errors || (r.statuses['200'] ?? 0) !== r.requests) throw new Error(`${which} ${poll}: ${JSON.stringify(r.statuses)}, ${r.errors} errors`);
      const pgS = [...be.values()].reduce((x, y) => x + y, 0);
      return { ...r, cpuUs: (c1.user + c1.system) / r.requests, pgUs: (pgS * 1e6) / r.requests };
    };
    for (const which of Object.keys(apps)) for (const poll of Object.keys(polls) as (keyof typeof polls)[]) await loadFromChild(origins[which] + polls[poll], 1, CONNECTIONS);
    for (let i = 0; i < RUNS; i++) {
      for (const poll of Object.keys(polls) as (keyof typeof polls)[]) {
        for (const which of Object.keys(apps)) (results[`${which} ${poll}`] ??= []).push(await measure(which, poll));
      }
    }
    const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    const m = (k: string, pick: (x: Fig) => number) => median(results[k].map(pick));
    console.log(`GET /api/v1/events/ polls, ${CONNECTIONS} connections, ${RUNS} alternated runs of ${SECONDS} s, medians; ${EVENTS} events in the log`);
    console.log('| poll | handler | req/s | p50 ms | p99 ms | web CPU µs/req | PostgreSQL CPU µs/req | server µs/req |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const poll of Object.keys(polls)) {
      for (const which of Object.keys(apps)) {
        const k = `${which} ${poll}`;
        console.log(
          `| ${poll} | ${which} | ${f(m(k, (x) => x.rps))} | ${f(
            m(k, (x) => x.p50),
            1,
          )} | ${f(
            m(k, (x) => x.p99),
            1,
          )} | ${f(m(k, (x) => x.cpuUs))} | ${f(m(k, (x) => x.pgUs))} | ${f(m(k, (x) => x.cpuUs + x.pgUs))} |`,
        );
      }
      const ratio = m(`today ${poll}`, (x) => x.rps) / m(`previous ${poll}`, (x) => x.rps);
      const cost = m(`today ${poll}`, (x) => x.cpuUs + x.pgUs) / m(`previous ${poll}`, (x) => x.cpuUs + x.pgUs);
      console.log(`${poll}: today ${f(ratio, 2)}x the baseline handler's req/s, ${f(cost, 2)}x its server CPU per request`);
    }
  } finally {
    await admin.end();
    await stack.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
