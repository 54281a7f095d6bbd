/**
 * Webhook tests: local HTTP receivers on 127.0.0.1 that record every request and answer as told
 * (status, delay, hang, redirect), the worker side as the worker process runs it (relay woken by
 * the waker's outbox probes, webhook-deliver and webhook-sweep as BullMQ workers, the sweep driven like the clock's
 * schedule), and a way to publish real events: an article with attributes, approved by an editor.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from 'bullmq';
import { wakeRelay } from '../../jobs/relay-events.js';
import { job as sweepJob } from '../../jobs/webhook-sweep.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { publishApproved } from '../../scripts/lib/webhook-sink.js';
import { RelayWaker } from '../../src/relay/waker.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { waitFor } from './wait.js';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

interface Answer {
  status?: number;
  delayMs?: number;
  /** Never answer (the sender's timeout ends it). */
  hang?: boolean;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  base: string;
  url(path: string): string;
  requests: ReceivedRequest[];
  /** Requests currently open, by path (hanging or delayed ones). */
  open: Map<string, number>;
  maxOpen: Map<string, number>;
  answer: (req: ReceivedRequest) => Answer;
  byPath(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: ReceivedRequest) => Answer = () => ({ status: 200 })): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  const r: Receiver = {
    base: '',
    url: (path) => `${r.base}${path}`,
    requests: [],
    open: new Map(),
    maxOpen: new Map(),
    answer,
    byPath: (path) => r.requests.filter((q) => q.path === path),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const rec: ReceivedRequest = { path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      r.requests.push(rec);
      const n = (r.open.get(path) ?? 0) + 1;
      r.open.set(path, n);
      r.maxOpen.set(path, Math.max(r.maxOpen.get(path) ?? 0, n));
      const done = () => r.open.set(path, (r.open.get(path) ?? 1) - 1);
      res.on('close', done);
      const a = r.answer(rec);
      if (a.hang) return;
      setTimeout(() => {
        res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end(a.body ?? 'ok');
      }, a.delayMs ?? 0);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

export interface WebhookWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/** Relay + webhook-deliver + webhook-sweep workers on the test's deps; the sweep runs every `sweepMs` (the clock's schedule). */
export async function startWebhookWorkers(deps: AppDeps, opts: { sweepMs?: number } = {}): Promise<WebhookWorkers> {
  const jobDeps = { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer };
  const workers = startWorkers(jobDeps, {
    redisUrl: deps.config.REDIS_URL,
    prefix: deps.config.QUEUE_PREFIX,
    lockDurationMs: 5000,
    concurrencyCap: 2,
    only: ['relay-events', 'webhook-deliver'],
  });
  const waker = new RelayWaker({ databaseUrl: deps.config.DATABASE_URL, log: deps.log, wake: wakeRelay(deps.queue.enqueuer) });
  await waker.ready;
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  let stopped = false;
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    sweeping = sweepJob.run({}, jobDeps, { attempt: 1, jobId: 'test-sweep' }).catch(() => undefined);
  }, opts.sweepMs ?? 250);
  return {
    workers,
    async close() {
      stopped = true;
      clearInterval(timer);
      await sweeping;
      await waker.close();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** Insert an article with these attributes and approve it: news.approved (public) is recorded with its attrs. Returns the article id. */
export async function approveArticle(
  deps: Pick<AppDeps, 'db'>,
  editorId: number,
  attrs: { tags?: string[]; token_addresses?: string[]; token_symbols?: string[] } = {},
): Promise<number> {
  return (await publishApproved(deps.db, editorId, attrs)).articleId;
}

/** Poll until `fn` is truthy. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  return (await waitFor(fn, { timeout: timeoutMs, interval: everyMs, what })) as T;
}
