/**
 * Fault drill: SIGTERM web and ws under load, as a platform does on every deploy or restart.
 *  - web: closed-loop clients (one connection per request, so "started" is well defined: the TCP
 *    connection was established before the signal) send feed reads, URL checks and slow
 *    submissions (the page-title wait). Every request that had started must get its answer;
 *    requests after the signal may be refused (the platform routes them to another process).
 *  - ws: clients follow the stream while events are published; on SIGTERM every client must get
 *    close code 1001, reconnect to the replacement process with its cursor and end up with every
 *    event exactly once (or a reconcile frame).
 *
 *   npx tsx scripts/drills/sigterm.ts [--clients 100] [--concurrency 16]
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { auditClients, createUser, lastStreamId, startPageSite, streamEventsAfter, StreamClient } from './lib/actors.js';
import { JWT_SECRET, sleep, Stack, type StackOptions } from './lib/stack.js';

interface Sent {
  op: string;
  connectedAt: number | null;
  doneAt: number;
  status: number | null;
  error: string | null;
}

function oneShot(base: string, op: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Sent> {
  const u = new URL(base + path);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve) => {
    let connectedAt: number | null = null;
    const done = (status: number | null, error: string | null) => resolve({ op, connectedAt, doneAt: Date.now(), status, error });
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent: false,
        headers: { ...headers, connection: 'close', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode!, null));
        res.on('error', (e) => done(null, `response ${e.message}`));
      },
    );
    req.on('socket', (s) => s.on('connect', () => (connectedAt = Date.now())));
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => done(null, e.code ?? e.message));
    req.end(payload);
  });
}

export interface SigtermReport {
  web: { requests: number; startedBeforeSignal: number; inFlightAtSignal: number; failedAfterStart: string[]; refusedAfterSignal: number; exit: string; shutdownMs: number };
  ws: { clients: number; closeCodes: Record<string, number>; resumed: number; audit: ReturnType<typeof auditClients>; exit: string; shutdownMs: number };
  lost: string[];
}

export async function runSigtermDrill(opts: { clients?: number; concurrency?: number; stack?: StackOptions; log?: (l: string) => void } = {}): Promise<SigtermReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[sigterm] ${l}\n`));
  const stack = await Stack.start({ ...opts.stack, env: { JOB_WAIT_MS: '1500', SHUTDOWN_TIMEOUT_MS: '15000', ...opts.stack?.env }, log });
  const site = await startPageSite(1000);
  const lost: string[] = [];
  try {
    const [web] = await Promise.all([stack.spawn('web'), stack.spawn('worker'), stack.spawn('ws')]);
    const user = await createUser(stack.db, JWT_SECRET, ['staff']);

    // ---- web ----------------------------------------------------------------------------------
    const sent: Sent[] = [];
    let running = true;
    let n = 0;
    const loop = async (i: number) => {
      while (running) {
        const k = n++;
        const r =
          k % 4 === 0
            ? await oneShot(stack.webUrl, 'submit', 'POST', '/api/v1/news/post', { url: `${site.url}/s/${k}` }, user.bearer)
            : k % 4 === 1
              ? await oneShot(stack.webUrl, 'check', 'GET', `/api/v1/news/check?url=${encodeURIComponent(`${site.url}/s/${k}`)}`, undefined, {})
              : await oneShot(stack.webUrl, 'feed', 'GET', '/api/v1/news/?sort_type=new', undefined, {});
        sent.push(r);
        if (r.status === null) await sleep(50);
        void i;
      }
    };
    const loops = Array.from({ length: opts.concurrency ?? 16 }, (_, i) => loop(i));
    await sleep(4000);
    const signalAt = Date.now();
    const inFlight = n - sent.length;
    log(`SIGTERM ${web.name} with about ${inFlight} requests in flight`);
    const webExit = await web.stop('SIGTERM', 20_000);
    const webShutdownMs = Date.now() - signalAt;
    await sleep(500);
    running = false;
    await Promise.all(loops);
    const started = sent.filter((s) => s.connectedAt !== null && s.connectedAt < signalAt);
    const failedAfterStart = started
      .filter((s) => s.status === null || s.status >= 500)
      .map((s) => `${s.op} ${s.status ?? s.error} (connected ${signalAt - s.connectedAt!} ms before the signal)`);
    const refused = sent.filter((s) => (s.connectedAt === null || s.connectedAt >= signalAt) && s.status === null).length;
    if (failedAfterStart.length) lost.push(`web: ${failedAfterStart.length} started requests failed: ${failedAfterStart.slice(0, 3).join('; ')}`);
    if (webExit.code !== 0) lost.push(`web exited ${JSON.stringify(webExit)}`);

    // ---- ws -----------------------------------------------------------------------------------
    const ws = stack.procs.find((p) => p.type === 'ws')!;
    const publisher = new EventPublisher(stack.redis, eventStreamKey(stack.prefix), 100_000);
    const clients: StreamClient[] = [];
    for (let i = 0; i < (opts.clients ?? 100); i++) clients.push(new StreamClient(stack.wsUrl, stack.env.TRUSTED_ORIGIN, { localAddress: `127.0.2.${1 + (i % 250)}` }));
    await Promise.all(clients.map((c) => c.opened));
    await sleep(300);
    const baseline = await lastStreamId(stack.redis, eventStreamKey(stack.prefix));
    let publishing = true;
    let id = 1_000_000;
    const pub = (async () => {
      while (publishing) {
        const k = id++;
        await publisher
          .publish({
            type: 'news.approved',
            id: k,
            slug: `e-${k}`,
            status: 'approved',
            headline: `Event ${k}`,
            date_posted: new Date().toISOString(),
            origin: 'manual',
            sponsored: null,
          })
          .catch(() => undefined);
        await sleep(10);
      }
    })();
    await sleep(2000);
    const wsSignal = Date.now();
    log(`SIGTERM ${ws.name} with ${clients.length} clients; a replacement starts on the same port`);
    const wsExit = await ws.stop('SIGTERM', 20_000);
    const wsShutdownMs = Date.now() - wsSignal;
    await stack.spawn('ws');
    await sleep(3000);
    publishing = false;
    await pub;
    await sleep(1500);
    const events = await streamEventsAfter(stack.redis, eventStreamKey(stack.prefix), baseline);
    const audit = auditClients(clients, events);
    const closeCodes: Record<string, number> = {};
    for (const c of clients) for (const cl of c.closes) closeCodes[cl.code] = (closeCodes[cl.code] ?? 0) + 1;
    const resumed = clients.filter((c) => c.connects >= 2).length;
    for (const c of clients) c.stop();
    if ((closeCodes['1001'] ?? 0) < clients.length) lost.push(`ws: only ${closeCodes['1001'] ?? 0} of ${clients.length} clients got close code 1001`);
    if (audit.lost.length) lost.push(`ws: ${audit.lost.length} clients missed events without a reconcile frame`);
    if (audit.duplicates) lost.push(`ws: ${audit.duplicates} events delivered twice after resume`);
    if (resumed < clients.length) lost.push(`ws: ${clients.length - resumed} clients did not reconnect`);
    if (wsExit.code !== 0) lost.push(`ws exited ${JSON.stringify(wsExit)}`);
    return {
      web: {
        requests: sent.length,
        startedBeforeSignal: started.length,
        inFlightAtSignal: inFlight,
        failedAfterStart,
        refusedAfterSignal: refused,
        exit: JSON.stringify(webExit),
        shutdownMs: webShutdownMs,
      },
      ws: { clients: clients.length, closeCodes, resumed, audit: { ...audit, lost: audit.lost.slice(0, 3) }, exit: JSON.stringify(wsExit), shutdownMs: wsShutdownMs },
      lost,
    };
  } finally {
    await site.close();
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { clients: { type: 'string' }, concurrency: { type: 'string' } } });
  const report = await runSigtermDrill({ clients: values.clients ? Number(values.clients) : undefined, concurrency: values.concurrency ? Number(values.concurrency) : undefined });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.lost.length ? `LOST: ${report.lost.join('; ')}` : 'lost: nothing');
  process.exit(report.lost.length ? 1 : 0);
}
