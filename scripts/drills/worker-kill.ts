/**
 * Fault drill: SIGKILL a worker in the middle of page-title, provenance-check and
 * monthly-distribution jobs; a second worker takes the stalled jobs over once their lock expires
 * (JOB_LOCK_MS; a killed credibility recompute run's lease, CREDIBILITY_RUN_LEASE_S, runs out as
 * soon). Prints what was lost (goal: nothing) and what ran twice harmlessly:
 *  - page-title: N submissions without a headline against a slow local site; every article ends
 *    with its page title, no article is duplicated, no job fails;
 *  - provenance-check: a burst of checks answered 202; every job id polls to a result;
 *  - monthly-distribution: the job is held inside its transaction (we hold the month's advisory
 *    lock), the worker is killed there; afterwards exactly one distribution, drops summing to it;
 *  - story-assign: S items are enqueued while we hold the assigner's advisory lock, so the jobs
 *    wait inside their transactions; the worker is killed there; afterwards every item is a member
 *    of exactly one story, with exactly one story.assigned event, and the story counts add up.
 *
 *   npx tsx scripts/drills/worker-kill.ts [--articles 40] [--checks 120] [--recipients 300] [--stories 24]
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { addMonths, monthOf } from '../../src/rewards/rules/rewards.js';
import { lockMonth } from '../../src/rewards/leaderboard-queries.js';
import { lockAssigner } from '../../src/stories/queries.js';
import { QueueClient } from '../../src/platform/queue.js';
import { Api, createUser, startPageSite } from './lib/actors.js';
import { JWT_SECRET, sleep, Stack, type StackOptions } from './lib/stack.js';
import { jobs } from '../../jobs/index.js';

export interface WorkerKillReport {
  pageTitle: {
    articles: number;
    created: number;
    duplicates: number;
    stillProvisional: number;
    wrongHeadline: number;
    failedJobs: number;
    killedWhileActive: number;
    refetched: number;
    recoveryMs: number;
  };
  provenance: { checks: number; accepted: number; results: number; missing: number; failedJobs: number; killedWhileActive: number; recoveryMs: number };
  distribution: {
    month: string;
    killedInsideTransaction: boolean;
    distributions: number;
    drops: number;
    duplicateDrops: number;
    sumMatches: boolean;
    recipients: number;
    secondRun: string;
    recoveryMs: number;
  };
  storyAssign: StoryAssignReport;
  lost: string[];
}

interface StoryAssignReport {
  items: number;
  killedInsideTransaction: boolean;
  activeAtKill: number;
  unassigned: number;
  /** Items with more than one membership row or more than one story.assigned event. */
  assignedTwice: number;
  countMismatches: number;
  failedJobs: number;
  recoveryMs: number;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(everyMs);
  }
}

export async function runWorkerKillDrill(
  opts: { articles?: number; checks?: number; recipients?: number; stories?: number; stack?: StackOptions; log?: (l: string) => void } = {},
): Promise<WorkerKillReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[worker-kill] ${l}\n`));
  const N = opts.articles ?? 40;
  const C = opts.checks ?? 120;
  const R = opts.recipients ?? 300;
  const lockMs = 2000;
  const stack = await Stack.start({
    ...opts.stack,
    env: { JOB_LOCK_MS: String(lockMs), JOB_WAIT_MS: '200', CREDIBILITY_RUN_LEASE_S: String(Math.max(1, Math.ceil(lockMs / 1000))), ...opts.stack?.env },
    log,
  });
  const site = await startPageSite(1500);
  const queue = new QueueClient(jobs, stack.redis, stack.env.REDIS_URL, stack.prefix);
  const lost: string[] = [];
  let addr = 0;
  const api = new Api(stack.webUrl, { localAddress: () => `127.0.0.${2 + (addr++ % 250)}` });
  try {
    const [web] = await Promise.all([stack.spawn('web'), stack.spawn('worker')]);
    void web;
    const user = await createUser(stack.db, JWT_SECRET, ['staff', 'editor']);

    // ---- page-title ---------------------------------------------------------------------------
    log(`page-title: submitting ${N} articles without headline (pages answer after 1.5 s)`);
    const subs = await Promise.all(Array.from({ length: N }, (_, i) => api.post('submit', '/api/v1/news/post', { url: `${site.url}/a/${i}` }, user.bearer)));
    const created = subs.filter((s) => s.status === 201).map((s) => s.body.article_id as number);
    await until('page-title jobs active', async () => (await queue.queue('page-title').getActiveCount()) >= 4, 20_000);
    const activeAtKill = await queue.queue('page-title').getActiveCount();
    const w1 = stack.procs.find((p) => p.type === 'worker')!;
    log(`page-title: SIGKILL ${w1.name} with ${activeAtKill} jobs active`);
    await w1.stop('SIGKILL');
    const killedAt = Date.now();
    await stack.spawn('worker');
    await until(
      'every page title applied',
      async () => {
        const r = await stack.db
          .selectFrom('articles')
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .where('headline_source', '=', 'provisional')
          .executeTakeFirstOrThrow();
        return Number(r.n) === 0;
      },
      60_000,
      200,
    );
    const ptRecovery = Date.now() - killedAt;
    const rows = await stack.db.selectFrom('articles').select(['id', 'url', 'headline', 'headline_source']).execute();
    const byUrl = new Map<string, number>();
    for (const r of rows) byUrl.set(r.url, (byUrl.get(r.url) ?? 0) + 1);
    const wrong = rows.filter((r) => r.headline !== `Title of ${new URL(r.url).pathname}`);
    const ptFailed = await queue.queue('page-title').getFailedCount();
    const pageTitle = {
      articles: N,
      created: created.length,
      duplicates: [...byUrl.values()].filter((n) => n > 1).length,
      stillProvisional: rows.filter((r) => r.headline_source === 'provisional').length,
      wrongHeadline: wrong.length,
      failedJobs: ptFailed,
      killedWhileActive: activeAtKill,
      refetched: [...site.hits.values()].filter((n) => n > 1).length,
      recoveryMs: ptRecovery,
    };
    if (created.length !== N) lost.push(`page-title: ${N - created.length} submissions not accepted`);
    if (pageTitle.duplicates) lost.push(`page-title: ${pageTitle.duplicates} URLs stored twice`);
    if (pageTitle.stillProvisional || pageTitle.wrongHeadline) lost.push(`page-title: ${pageTitle.stillProvisional + pageTitle.wrongHeadline} headlines not applied`);
    if (ptFailed) lost.push(`page-title: ${ptFailed} jobs failed`);

    // ---- provenance-check ---------------------------------------------------------------------
    log(`provenance-check: ${C} checks in a burst`);
    const checks = await Promise.all(
      Array.from({ length: C }, (_, i) => api.post('provenance', '/api/v1/provenance/check', i % 2 ? { url: `${site.url}/a/${i % N}` } : { text: `Title of /a/${i % N}` })),
    );
    const ids = checks.filter((c) => c.status === 202 || c.status === 200).map((c) => (c.status === 202 ? (c.body.job_id as string) : null));
    const pending = ids.filter((x): x is string => x !== null);
    const active = await queue.queue('provenance-check').getJobCounts('active', 'waiting');
    const w2 = stack.procs.filter((p) => p.type === 'worker' && p.running())[0];
    log(`provenance-check: SIGKILL ${w2.name} (${active.active} active, ${active.waiting} waiting)`);
    await w2.stop('SIGKILL');
    const killed2 = Date.now();
    await stack.spawn('worker');
    let results = 0;
    const missing: string[] = [];
    for (const id of pending) {
      const r = await until(
        `result of ${id}`,
        async () => {
          const o = await api.get('poll', `/api/v1/provenance/check/${id}`);
          return o.status === 202 ? undefined : o;
        },
        60_000,
        200,
      );
      if (r.status === 200 && r.body?.verdict) results++;
      else missing.push(`${id}: ${r.status} ${r.code}`);
    }
    const provenance = {
      checks: C,
      accepted: ids.length,
      results: results + ids.filter((x) => x === null).length,
      missing: missing.length,
      failedJobs: await queue.queue('provenance-check').getFailedCount(),
      killedWhileActive: active.active,
      recoveryMs: Date.now() - killed2,
    };
    if (ids.length !== C)
      lost.push(
        `provenance: ${C - ids.length} checks not accepted: ${JSON.stringify(
          checks
            .filter((c) => c.status !== 202 && c.status !== 200)
            .slice(0, 3)
            .map((c) => [c.status, c.code]),
        )}`,
      );
    if (missing.length) lost.push(`provenance: ${missing.length} checks without a result (${missing.slice(0, 3).join('; ')})`);

    // ---- monthly-distribution -----------------------------------------------------------------
    const month = addMonths(monthOf(new Date()), -1);
    log(`monthly-distribution: ${R} contributors in ${month}`);
    const users = await Promise.all(Array.from({ length: R }, () => createUser(stack.db, JWT_SECRET)));
    const mid = new Date(`${month}-15T12:00:00Z`);
    await sql`
      INSERT INTO articles (slug, headline, url, normalized_url, status, submitted_by, created_at, published_at)
      SELECT 'drill-' || u.id, 'Drill ' || u.id, 'https://drill.example/' || u.id, 'https://drill.example/' || u.id, 'approved', u.id, ${mid}, ${mid}
      FROM unnest(${users.map((u) => u.id)}::int[]) AS u(id)`.execute(stack.db);
    // Hold the month's lock so the job blocks inside its transaction.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let lockHeld!: () => void;
    const held = new Promise<void>((r) => (lockHeld = r));
    const holder = stack.db.transaction().execute(async (trx) => {
      await lockMonth(trx, month);
      lockHeld();
      await released;
    });
    await held;
    await queue.enqueue('monthly-distribution', { month });
    await until('distribution job active', async () => (await queue.queue('monthly-distribution').getActiveCount()) === 1, 20_000);
    const blocked = await until(
      'job waiting for the month lock',
      async () => {
        const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'worker'`.execute(stack.db);
        return r.rows[0].n > 0 ? true : undefined;
      },
      10_000,
    ).catch(() => false);
    const w3 = stack.procs.filter((p) => p.type === 'worker' && p.running())[0];
    log(`monthly-distribution: SIGKILL ${w3.name} while the job is ${blocked ? 'inside its transaction, waiting for the lock' : 'active'}`);
    await w3.stop('SIGKILL');
    const killed3 = Date.now();
    release();
    await holder;
    await stack.spawn('worker');
    await until('distribution completed', async () => (await queue.queue('monthly-distribution').getCompletedCount()) === 1, 60_000, 200);
    const recovery3 = Date.now() - killed3;
    const dist = await sql<{
      n: number;
      total: string;
      recipients: number;
    }>`SELECT count(*)::int AS n, max(total_distributed)::text AS total, max(recipients)::int AS recipients FROM reward_distributions WHERE month = ${month}`.execute(stack.db);
    const drops = await sql<{
      n: number;
      sum: string;
      distinct_addr: number;
    }>`SELECT count(*)::int AS n, coalesce(sum(amount), 0)::text AS sum, count(DISTINCT address)::int AS distinct_addr FROM reward_drops WHERE month = ${month}`.execute(stack.db);
    const again = await queue.enqueueAndWait('monthly-distribution', { month }, 20_000);
    const d = dist.rows[0];
    const dr = drops.rows[0];
    const distribution = {
      month,
      killedInsideTransaction: blocked === true,
      distributions: d.n,
      drops: dr.n,
      duplicateDrops: dr.n - dr.distinct_addr,
      sumMatches: BigInt(dr.sum.split('.')[0]) === BigInt((d.total ?? '0').split('.')[0]),
      recipients: d.recipients,
      secondRun: again.state === 'completed' ? String((again.result as { status: string }).status) : again.state,
      recoveryMs: recovery3,
    };
    if (d.n !== 1) lost.push(`distribution: ${d.n} distributions for ${month}`);
    if (distribution.duplicateDrops) lost.push(`distribution: ${distribution.duplicateDrops} duplicate drops`);
    if (dr.n !== d.recipients) lost.push(`distribution: ${dr.n} drops for ${d.recipients} recipients`);
    if (!distribution.sumMatches) lost.push('distribution: drops do not sum to the distributed total');
    if (distribution.secondRun !== 'already_distributed') lost.push(`distribution: second run was ${distribution.secondRun}`);

    const storyAssign = await storyAssignCase(stack, queue, opts.stories ?? 24, log, lost);
    return { pageTitle, provenance, distribution, storyAssign, lost };
  } finally {
    api.close();
    await queue.close();
    await site.close();
    await stack.close();
  }
}

/**
 * story-assign: S approved articles (in groups of three near-identical headlines from different
 * hosts), their jobs enqueued while this drill holds the assigner's advisory lock, so each active
 * job waits inside its transaction (item row locked); SIGKILL the worker there, release, start a
 * worker. Exactly once: one membership row and one story.assigned event per item, and each
 * story's member_count equal to its membership rows.
 */
async function storyAssignCase(stack: Stack, queue: QueueClient, S: number, log: (l: string) => void, lost: string[]): Promise<StoryAssignReport> {
  const at = new Date();
  const ids = (
    await sql<{ id: number }>`
      INSERT INTO articles (slug, headline, url, normalized_url, source, status, created_at, published_at)
      SELECT 'story-drill-' || i, 'Drill exchange ' || (i / 3) || ' lists token ' || (i / 3) || ' for spot trading', 'https://h' || (i % 3) || '.drill.example/s/' || i,
             'https://h' || (i % 3) || '.drill.example/s/' || i, 'h' || (i % 3) || '.drill.example', 'approved', ${at}, ${at}
      FROM generate_series(0, ${S - 1}) AS i
      RETURNING id`.execute(stack.db)
  ).rows.map((r) => r.id);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let lockHeld!: () => void;
  const held = new Promise<void>((r) => (lockHeld = r));
  const holder = stack.db.transaction().execute(async (trx) => {
    await lockAssigner(trx);
    lockHeld();
    await released;
  });
  await held;
  log(`story-assign: ${S} items enqueued while the assigner lock is held`);
  for (const id of ids) await queue.enqueue('story-assign', { kind: 'article', id }, { dedupeId: `story-assign-article-${id}` });
  await until('story-assign jobs active', async () => (await queue.queue('story-assign').getActiveCount()) > 0, 20_000);
  const blocked = await until(
    'story-assign waiting for the assigner lock',
    async () => {
      const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'worker'`.execute(stack.db);
      return r.rows[0].n > 0 ? true : undefined;
    },
    10_000,
  ).catch(() => false);
  const activeAtKill = await queue.queue('story-assign').getActiveCount();
  const w = stack.procs.filter((p) => p.type === 'worker' && p.running())[0];
  log(`story-assign: SIGKILL ${w.name} with ${activeAtKill} jobs active${blocked ? ', inside their transactions' : ''}`);
  await w.stop('SIGKILL');
  const killedAt = Date.now();
  release();
  await holder;
  await stack.spawn('worker');
  const unassignedCount = async () =>
    Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM articles WHERE id = ANY(${ids}::int[]) AND story_id IS NULL`.execute(stack.db)).rows[0].n);
  await until('every drill item assigned', async () => (await unassignedCount()) === 0, 60_000, 200);
  const recoveryMs = Date.now() - killedAt;
  const twice = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM unnest(${ids}::int[]) AS x(id)
    WHERE (SELECT count(*) FROM story_members m WHERE m.item_kind = 'article' AND m.item_id = x.id) <> 1
       OR (SELECT count(*) FROM event_log e WHERE e.type = 'story.assigned' AND e.article_id = x.id) <> 1`.execute(stack.db);
  const mismatches = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM stories s
    WHERE s.id IN (SELECT story_id FROM articles WHERE id = ANY(${ids}::int[]))
      AND s.member_count <> (SELECT count(*) FROM story_members m WHERE m.story_id = s.id)`.execute(stack.db);
  const report: StoryAssignReport = {
    items: S,
    killedInsideTransaction: blocked === true,
    activeAtKill,
    unassigned: await unassignedCount(),
    assignedTwice: twice.rows[0].n,
    countMismatches: mismatches.rows[0].n,
    failedJobs: await queue.queue('story-assign').getFailedCount(),
    recoveryMs,
  };
  if (report.assignedTwice) lost.push(`story-assign: ${report.assignedTwice} items not assigned exactly once`);
  if (report.countMismatches) lost.push(`story-assign: ${report.countMismatches} stories whose member_count is off`);
  if (report.failedJobs) lost.push(`story-assign: ${report.failedJobs} jobs failed`);
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { articles: { type: 'string' }, checks: { type: 'string' }, recipients: { type: 'string' }, stories: { type: 'string' } } });
  const report = await runWorkerKillDrill({
    articles: values.articles ? Number(values.articles) : undefined,
    checks: values.checks ? Number(values.checks) : undefined,
    recipients: values.recipients ? Number(values.recipients) : undefined,
    stories: values.stories ? Number(values.stories) : undefined,
  });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.lost.length ? `LOST: ${report.lost.join('; ')}` : 'lost: nothing');
  process.exit(report.lost.length ? 1 : 0);
}
