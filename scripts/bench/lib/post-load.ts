/**
 * HTTP POST load generators of the event benchmark, run as a child process (forked with an IPC
 * channel) so that they do not share an event loop with the servers they load:
 *
 *  - `rate`: open loop. Request i is due at t0 + i / rate (the schedule, not when the previous one
 *    returned), so a server that falls behind shows up as latency instead of a lower offered load.
 *    POSTs `paths[i]` (no body, or a submission body); reports, per request, when it was due, sent
 *    and answered (Date.now()).
 *  - `closed`: `concurrency` keep-alive loops for `seconds`, each POSTing a fresh JSON body
 *    (`{url, headline}` of a submission nobody made before); reports req/s, p50, p99, statuses.
 *
 * IPC: {cmd: 'rate' | 'closed', ...} -> {type: 'started', t0} then {type: 'done', ...}; one command at a
 * time, as many as wanted; the process exits when its parent disconnects.
 */
import http from 'node:http';
import { pct } from './stats.js';
import { onMessage } from './child.js';
import type { LoadResult } from './load.js';

export interface RateCmd {
  cmd: 'rate';
  base: string;
  paths: string[];
  rate: number;
  headers: Record<string, string>;
  /** Connections at most (requests beyond wait in the client for a free one, as behind a proxy's upstream pool). */
  connections: number;
  /** When set, request i carries the submission body of `closed` with this tag (else no body). */
  bodyTag?: string;
}

export interface RateDone {
  type: 'done';
  /** Per request: [due, sent, answered (0 = error), status]. */
  rows: [number, number, number, number][];
  t0: number;
}

export interface ClosedCmd {
  cmd: 'closed';
  url: string;
  seconds: number;
  concurrency: number;
  headers: Record<string, string>;
  /** Bodies are {url: `https://bench-submit.example/${tag}/${n}`, headline: `Bench submission ${tag} ${n}`}. */
  tag: string;
}

/** The closed loop's result: the same figures as a GET load (load.ts). */
export interface ClosedDone extends LoadResult {
  type: 'done';
}

function post(agent: http.Agent, u: URL, path: string, headers: Record<string, string>, body: string | null): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        method: 'POST',
        host: u.hostname,
        port: u.port,
        path,
        headers: { ...headers, ...(body === null ? { 'content-length': '0' } : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body ?? undefined);
  });
}

const submissionBody = (tag: string, k: number) => JSON.stringify({ url: `https://bench-submit.example/${tag}/${k}`, headline: `Bench submission ${tag} ${k}` });

async function runRate(c: RateCmd): Promise<RateDone> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: c.connections });
  const u = new URL(c.base);
  const rows: [number, number, number, number][] = new Array(c.paths.length);
  const t0 = Date.now() + 50;
  process.send!({ type: 'started', t0 });
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < c.paths.length; i++) {
    const due = t0 + (i * 1000) / c.rate;
    const wait = due - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sent = Date.now();
    const body = c.bodyTag === undefined ? null : submissionBody(c.bodyTag, i);
    inflight.push(
      post(agent, u, c.paths[i], c.headers, body).then((status) => {
        rows[i] = [due, sent, status ? Date.now() : 0, status];
      }),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  return { type: 'done', rows, t0 };
}

async function runClosed(c: ClosedCmd): Promise<ClosedDone> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: c.concurrency });
  const u = new URL(c.url);
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let n = 0;
  process.send!({ type: 'started', t0: Date.now() });
  const started = performance.now();
  const until = started + c.seconds * 1000;
  await Promise.all(
    Array.from({ length: c.concurrency }, async () => {
      while (performance.now() < until) {
        const k = n++;
        const body = submissionBody(c.tag, k);
        const t = performance.now();
        const status = await post(agent, u, u.pathname, c.headers, body);
        if (status === 0) {
          errors++;
          continue;
        }
        lat.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { type: 'done', requests: lat.length, rps: lat.length / elapsed, p50: pct(lat, 0.5), p99: pct(lat, 0.99), errors, statuses };
}

if (process.send) {
  process.on('disconnect', () => process.exit(0));
  onMessage(async (msg: any) => {
    const done = msg.cmd === 'rate' ? await runRate(msg as RateCmd) : await runClosed(msg as ClosedCmd);
    process.send!(done);
  });
  process.send({ type: 'ready' });
}
