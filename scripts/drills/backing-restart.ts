/**
 * Fault drill: restart Redis or PostgreSQL under load. web, worker and ws run as real processes on
 * their own Redis (AOF, as in production) and PostgreSQL; virtual users submit, approve, read and
 * check while WebSocket clients follow the stream. The service is stopped for `--down` seconds and
 * started again. Standard:
 *  - while it is down the API answers 503 with an error code and Retry-After, never another 5xx,
 *    never a dropped connection, never a hang; it recovers on its own (recovery time printed);
 *  - nothing acknowledged is lost: every 201 is stored, every approval has its event, every
 *    auto-headline job ran; every WebSocket client got every public event or a reconcile frame.
 *
 *   npx tsx scripts/drills/backing-restart.ts --service redis|postgres [--down 5] [--clients 50] [--before 5] [--after 10]
 */
import { parseArgs } from 'node:util';
import { StreamClient, startPageSite } from './lib/actors.js';
import { sleep, Stack, type StackOptions } from './lib/stack.js';
import { auditStream, auditTraffic, lastStreamId, startTraffic, type TrafficAudit } from './lib/traffic.js';

export interface RestartReport {
  service: 'redis' | 'postgres';
  downMs: number;
  traffic: TrafficAudit;
  stream: Awaited<ReturnType<typeof auditStream>>;
  processes: Record<string, string>;
  lost: string[];
}

export async function runRestartDrill(opts: {
  service: 'redis' | 'postgres';
  downS?: number;
  clients?: number;
  beforeS?: number;
  afterS?: number;
  stack?: StackOptions;
  log?: (l: string) => void;
}): Promise<RestartReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[${opts.service}-restart] ${l}\n`));
  const stack = await Stack.start({ redisPersistent: true, ...opts.stack, env: { JOB_WAIT_MS: '500', JOB_LOCK_MS: '5000', ...opts.stack?.env }, log });
  // Pages answer slowly, so page-title jobs are in flight when the service goes away.
  const site = await startPageSite(1000);
  const clients: StreamClient[] = [];
  try {
    await Promise.all([stack.spawn('web'), stack.spawn('worker'), stack.spawn('ws')]);
    const origin = stack.env.TRUSTED_ORIGIN;
    for (let i = 0; i < (opts.clients ?? 50); i++) clients.push(new StreamClient(stack.wsUrl, origin, { localAddress: `127.0.1.${1 + (i % 250)}` }));
    await Promise.all(clients.map((c) => c.opened));
    await sleep(500);
    const baseline = await lastStreamId(stack.redis, `${stack.prefix}:events:news`);
    log(`${clients.length} stream clients connected; traffic starts`);
    const traffic = await startTraffic(stack, site);
    await sleep((opts.beforeS ?? 5) * 1000);

    const downAt = Date.now();
    log(`stopping ${opts.service}`);
    await stack.server(opts.service).stop();
    await sleep((opts.downS ?? 5) * 1000);
    log(`starting ${opts.service}`);
    await stack.server(opts.service).start();
    const upAt = Date.now();
    await sleep((opts.afterS ?? 10) * 1000);
    await traffic.stop();
    log('traffic stopped; waiting for jobs and stream to drain');
    // Page titles still in flight, then the stream's last frames.
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const left = await stack.db.selectFrom('articles').select('id').where('headline_source', '=', 'provisional').where('url', 'like', '%/t/%').execute();
      const acknowledged = left.filter((r) => traffic.submitted.has(r.id) && !traffic.submitted.get(r.id)!.supplied);
      if (acknowledged.length === 0) break;
      await sleep(250);
    }
    await sleep(1500);
    const audit = await auditTraffic(stack, traffic, { downAt, upAt });
    const stream = await auditStream(stack, clients, baseline);
    traffic.api.close();
    const processes = Object.fromEntries(stack.procs.map((p) => [p.name, p.running() ? 'running' : `exited ${JSON.stringify(p.output().slice(-500))}`]));
    const lost = [...audit.lost];
    if (stream.lost.length) lost.push(`${stream.lost.length} stream clients missed events without a reconcile frame (e.g. ${stream.lost[0].missing.slice(0, 3).join(', ')})`);
    for (const [name, state] of Object.entries(processes)) if (state !== 'running') lost.push(`${name} ${state}`);
    return { service: opts.service, downMs: upAt - downAt, traffic: audit, stream: { ...stream, lost: stream.lost.slice(0, 3) }, processes, lost };
  } finally {
    for (const c of clients) c.stop();
    await site.close();
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { service: { type: 'string', default: 'redis' }, down: { type: 'string' }, clients: { type: 'string' }, before: { type: 'string' }, after: { type: 'string' } },
  });
  if (values.service !== 'redis' && values.service !== 'postgres') throw new Error('--service redis|postgres');
  const report = await runRestartDrill({
    service: values.service,
    downS: values.down ? Number(values.down) : undefined,
    clients: values.clients ? Number(values.clients) : undefined,
    beforeS: values.before ? Number(values.before) : undefined,
    afterS: values.after ? Number(values.after) : undefined,
  });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.lost.length ? `LOST: ${report.lost.join('; ')}` : 'lost: nothing');
  process.exit(report.lost.length ? 1 : 0);
}
