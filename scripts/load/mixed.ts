/**
 * Sustained mixed load against the whole service, as the Procfile runs it: this script starts its
 * own PostgreSQL and Redis and the web, worker, ws and clock processes (scripts/drills/lib/stack.ts),
 * then for `--minutes` drives, from this separate process and loopback only:
 *  - virtual readers: feed pages (hot/new/top), single articles, yap lists, URL checks, provenance
 *    search (spread over 127.0.0.x so per-IP limits apply per simulated client);
 *  - virtual contributors: submissions (half through the page-title job, against a local site),
 *    votes, yaps, provenance checks; an editor approving submissions (news.approved events);
 *  - `--clients` WebSocket clients (1,000 by default) spread over 127.0.1.x-127.0.4.x.
 * Prints: requests and p50/p99 per route, every 5xx (goal: none), transport errors, RSS of each
 * process at start and end (and its peak), events delivered to the stream clients, and whether the
 * job backlog drained after the traffic stopped.
 *
 *   npx tsx scripts/load/mixed.ts [--minutes 5] [--clients 1000] [--readers 24] [--writers 8] [--think 100]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { jobNames, jobs } from '../../jobs/index.js';
import { QueueClient } from '../../src/platform/queue.js';
import { Api, createUser, percentile, startPageSite, StreamClient, type User } from '../drills/lib/actors.js';
import { JWT_SECRET, sleep, Stack } from '../drills/lib/stack.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    clients: { type: 'string', default: '1000' },
    readers: { type: 'string', default: '24' },
    writers: { type: 'string', default: '8' },
    think: { type: 'string', default: '100' },
    out: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const wsClients = Number(values.clients);
const log = (l: string) => process.stderr.write(`[load ${new Date().toISOString().slice(11, 19)}] ${l}\n`);
const METRICS_TOKEN = 'load-metrics-token-0123456789';

const stack = await Stack.start({
  env: {
    WS_MAX_CONNECTIONS: String(wsClients + 500),
    WS_MAX_PER_IP: '100000',
    METRICS_TOKEN,
    JOB_WAIT_MS: '3000',
    LOG_LEVEL: 'warn',
  },
  log,
});
const site = await startPageSite(30);
const clients: StreamClient[] = [];
let addr = 0;
const api = new Api(stack.webUrl, { timeoutMs: 30_000, localAddress: () => `127.0.${5 + (addr % 4)}.${2 + (addr++ % 250)}` });
const queue = new QueueClient(jobs, stack.redis, stack.env.REDIS_URL, stack.prefix);

try {
  const procs = await Promise.all([stack.spawn('web'), stack.spawn('worker'), stack.spawn('ws'), stack.spawn('clock')]);
  const editor = await createUser(stack.db, JWT_SECRET, ['editor', 'staff']);
  const writers: User[] = await Promise.all(Array.from({ length: Number(values.writers) }, (_, i) => createUser(stack.db, JWT_SECRET, [], i % 4 === 3 ? 'cyborg' : 'human')));

  // Seed: a feed worth reading.
  log('seeding 200 approved articles');
  for (let i = 0; i < 200; i++) {
    const s = await api.post('seed', '/api/v1/news/post', { url: `${site.url}/seed/${i}`, headline: `Seed article ${i} about ETH and DeFi` }, editor.bearer);
    if (s.status === 201) await api.post('seed', `/api/v1/news/${s.body.article_id}/approve`, undefined, editor.bearer);
  }
  const ids = (await stack.db.selectFrom('articles').select('id').where('status', '=', 'approved').execute()).map((r) => r.id);

  log(`connecting ${wsClients} stream clients`);
  let eventsDelivered = 0;
  for (let i = 0; i < wsClients; i++) {
    clients.push(
      new StreamClient(stack.wsUrl, stack.env.TRUSTED_ORIGIN, { localAddress: `127.0.${1 + (i % 4)}.${1 + (Math.floor(i / 4) % 250)}`, onEvent: () => eventsDelivered++ }),
    );
    if (i % 50 === 49) await sleep(50);
  }
  await Promise.all(clients.map((c) => c.opened));
  await sleep(2000);
  const rssStart = Object.fromEntries(procs.map((p) => [p.name, Stack.rss(p.pid)]));
  const rssPeak = { ...rssStart };
  log(`RSS at start: ${JSON.stringify(Object.fromEntries(Object.entries(rssStart).map(([k, v]) => [k, `${Math.round(v / 1e6)} MB`])))}`);

  api.outcomes.length = 0;
  const until = Date.now() + minutes * 60_000;
  const think = Number(values.think);
  const pick = <T>(a: T[]) => a[Math.floor(Math.random() * a.length)];
  let seq = 0;
  const pending: number[] = [];

  const reader = async () => {
    while (Date.now() < until) {
      const r = Math.random();
      if (r < 0.35) await api.get('GET /news/', `/api/v1/news/?sort_type=${pick(['hot', 'new', 'top'])}&page=${1 + Math.floor(Math.random() * 3)}`);
      else if (r < 0.55) await api.get('GET /news/:id/', `/api/v1/news/${pick(ids)}/`);
      else if (r < 0.7) await api.get('GET /news/:id/list_yaps', `/api/v1/news/${pick(ids)}/list_yaps`);
      else if (r < 0.85) await api.get('GET /news/check', `/api/v1/news/check?url=${encodeURIComponent(`${site.url}/seed/${Math.floor(Math.random() * 400)}`)}`);
      else if (r < 0.95) await api.get('GET /provenance/search', `/api/v1/provenance/search?q=${pick(['ETH', 'DeFi', 'seed article', 'bitcoin'])}`);
      else await api.get('GET /leaderboards/', '/api/v1/leaderboards/');
      await sleep(think * (0.5 + Math.random()));
    }
  };
  const writer = async (u: User) => {
    while (Date.now() < until) {
      const r = Math.random();
      if (r < 0.2) {
        const n = ++seq;
        const s = await api.post(
          'POST /news/post',
          '/api/v1/news/post',
          n % 2 ? { url: `${site.url}/w/${n}` } : { url: `${site.url}/w/${n}`, headline: `Contributed ${n}` },
          u.bearer,
        );
        if (s.status === 201) pending.push(s.body.article_id);
      } else if (r < 0.5) await api.post('POST /news/:id/vote', `/api/v1/news/${pick(ids)}/vote`, { weight: pick([1, 1, 1, -1, 0]) }, u.bearer);
      else if (r < 0.75)
        await api.post(
          'POST /news/:id/post_yap',
          `/api/v1/news/${pick(ids)}/post_yap`,
          { text: `Take ${Math.random().toString(36).slice(2)}`, tags: [pick(['tldr', 'analysis', 'question'])] },
          u.bearer,
        );
      else
        await api.post(
          'POST /provenance/check',
          '/api/v1/provenance/check',
          Math.random() < 0.5 ? { url: `${site.url}/seed/${Math.floor(Math.random() * 400)}` } : { text: `Seed article ${Math.floor(Math.random() * 200)} about ETH` },
        );
      await sleep(think * 2 * (0.5 + Math.random()));
    }
  };
  const approver = async () => {
    while (Date.now() < until) {
      const id = pending.shift();
      if (id !== undefined) {
        const a = await api.post('POST /news/:id/approve', `/api/v1/news/${id}/approve`, undefined, editor.bearer);
        if (a.status === 200) ids.push(id);
      }
      await sleep(500);
    }
  };
  const sampler = (async () => {
    while (Date.now() < until) {
      await sleep(10_000);
      for (const p of procs) rssPeak[p.name] = Math.max(rssPeak[p.name], Stack.rss(p.pid));
      const done = api.outcomes.length;
      log(`${done} requests so far; ${api.outcomes.filter((o) => o.status !== null && o.status >= 500).length} 5xx; ${clients.filter((c) => c.open).length} stream clients open`);
    }
  })();
  log(`traffic for ${minutes} min: ${values.readers} readers, ${writers.length} writers, 1 editor`);
  const t0 = Date.now();
  await Promise.all([...Array.from({ length: Number(values.readers) }, reader), ...writers.map(writer), approver(), sampler]);
  const elapsedS = (Date.now() - t0) / 1000;
  const rssEnd = Object.fromEntries(procs.map((p) => [p.name, Stack.rss(p.pid)]));

  // Backlog: jobs waiting or running (scheduler-driven delayed jobs excepted) must reach 0.
  const backlog = async () => {
    const counts = await Promise.all(jobNames.map((n) => queue.queue(n).getJobCounts('waiting', 'active', 'prioritized')));
    return counts.reduce((s, c) => s + (c.waiting ?? 0) + (c.active ?? 0) + (c.prioritized ?? 0), 0);
  };
  const backlogAtStop = await backlog();
  const drainStart = Date.now();
  let left = backlogAtStop;
  while (left > 0 && Date.now() - drainStart < 60_000) {
    await sleep(250);
    left = await backlog();
  }
  const failedJobs = (await Promise.all(jobNames.map(async (n) => [n, await queue.queue(n).getFailedCount()] as const))).filter(([, c]) => c > 0);
  const provisional = await stack.db.selectFrom('articles').select('id').where('headline_source', '=', 'provisional').execute();

  // Server-side view of 5xx, from web's own /metrics.
  const m = await fetch(`${stack.webUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text());
  const server5xx = m
    .split('\n')
    .filter((l) => /^squid_http_requests_total\{.*status="5\d\d"/.test(l))
    .map((l) => l);

  const outcomes = api.outcomes.filter((o) => o.op !== 'seed');
  const byRoute = new Map<string, number[]>();
  const statuses = new Map<string, Record<string, number>>();
  for (const o of outcomes) {
    (byRoute.get(o.op) ?? byRoute.set(o.op, []).get(o.op)!).push(o.ms);
    const st = statuses.get(o.op) ?? statuses.set(o.op, {}).get(o.op)!;
    const k = o.status === null ? `ERR ${o.error}` : String(o.status);
    st[k] = (st[k] ?? 0) + 1;
  }
  const routes = [...byRoute.entries()]
    .map(([route, ms]) => ({
      route,
      requests: ms.length,
      rps: +(ms.length / elapsedS).toFixed(1),
      p50: +percentile(ms, 0.5).toFixed(1),
      p99: +percentile(ms, 0.99).toFixed(1),
      max: +Math.max(...ms).toFixed(0),
      statuses: statuses.get(route),
    }))
    .sort((a, b) => b.requests - a.requests);
  const fivexx = outcomes.filter((o) => o.status !== null && o.status >= 500);
  const transport = outcomes.filter((o) => o.status === null);
  const mb = (v: number) => Math.round(v / 1e6);
  const report = {
    minutes,
    elapsedS: Math.round(elapsedS),
    requests: outcomes.length,
    rps: +(outcomes.length / elapsedS).toFixed(1),
    fiveXX: fivexx.length,
    fiveXXSamples: fivexx.slice(0, 5).map((o) => `${o.op} ${o.status} ${o.code}`),
    serverSide5xxSeries: server5xx,
    transportErrors: transport.length,
    transportSamples: transport.slice(0, 5).map((o) => `${o.op} ${o.error}`),
    routes,
    streamClients: {
      configured: wsClients,
      openAtEnd: clients.filter((c) => c.open).length,
      reconnects: clients.reduce((s, c) => s + Math.max(0, c.connects - 1), 0),
      eventsDelivered,
      reconciles: clients.reduce((s, c) => s + c.reconciles.length, 0),
    },
    rssMB: Object.fromEntries(procs.map((p) => [p.name, { start: mb(rssStart[p.name]), end: mb(rssEnd[p.name]), peak: mb(Math.max(rssPeak[p.name], rssEnd[p.name])) }])),
    backlog: { atStop: backlogAtStop, drainedInMs: left === 0 ? Date.now() - drainStart : null, left, failedJobs, provisionalHeadlines: provisional.length },
  };
  console.log(JSON.stringify(report, null, 2));
  if (values.out) writeFileSync(values.out, JSON.stringify(report, null, 2));
  const ok = fivexx.length === 0 && transport.length === 0 && left === 0;
  console.log(ok ? 'PASS: zero 5xx, no transport errors, backlog drained' : 'FAIL');
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const c of clients) c.stop();
  api.close();
  await queue.close();
  await site.close();
  await stack.close();
}
