/**
 * The actors of the drills and the load run: signed-in users, an HTTP client that records every
 * outcome (status, error code, latency, transport error), a local web site for page titles, and
 * WebSocket clients that track every event and reconcile frame they get and resume after a close.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import WebSocket from 'ws';
import { signAccessToken, type Role } from '../../../src/identity/tokens.js';
import type { Db } from '../../../src/platform/db.js';
import type { Redis } from '../../../src/platform/redis.js';

export interface User {
  id: number;
  token: string;
  bearer: Record<string, string>;
}

export async function createUser(db: Db, secret: string, roles: Role[] = [], accountType: 'human' | 'cyborg' | 'bot' = 'human'): Promise<User> {
  const address = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
  const row = await db.insertInto('users').values({ wallet_address: address, roles, account_type: accountType }).returning(['id']).executeTakeFirstOrThrow();
  const token = await signAccessToken(secret, { userId: row.id, address, roles });
  return { id: row.id, token, bearer: { authorization: `Bearer ${token}` } };
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Outcome {
  op: string;
  /** When the request was sent (ms since epoch). */
  at: number;
  ms: number;
  status: number | null;
  code: string | null;
  retryAfter: string | null;
  /** Transport failure (refused, reset, timeout) instead of a status. */
  error: string | null;
  body: any;
}

export class Api {
  readonly outcomes: Outcome[] = [];
  private readonly agent: http.Agent;

  constructor(
    readonly base: string,
    private readonly opts: { timeoutMs?: number; keepAlive?: boolean; localAddress?: () => string } = {},
  ) {
    this.agent = new http.Agent({ keepAlive: opts.keepAlive ?? true, maxSockets: 256 });
  }

  request(op: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
    const u = new URL(this.base + path);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const h: Record<string, string> = { ...headers };
    if (payload) {
      h['content-type'] = 'application/json';
      h['content-length'] = String(payload.length);
    }
    const at = Date.now();
    const t0 = performance.now();
    return new Promise((resolve) => {
      const finish = (o: Omit<Outcome, 'op' | 'at' | 'ms'>) => {
        const out = { op, at, ms: performance.now() - t0, ...o };
        this.outcomes.push(out);
        resolve(out);
      };
      const req = http.request(
        { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: h, agent: this.agent, localAddress: this.opts.localAddress?.() },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('error', (e) => finish({ status: null, code: null, retryAfter: null, error: `response: ${e.message}`, body: null }));
          res.on('end', () => {
            let parsed: any = null;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              /* not JSON */
            }
            finish({ status: res.statusCode!, code: parsed?.error?.code ?? null, retryAfter: (res.headers['retry-after'] as string) ?? null, error: null, body: parsed });
          });
        },
      );
      req.setTimeout(this.opts.timeoutMs ?? 20_000, () => req.destroy(new Error('client timeout')));
      req.on('error', (e: NodeJS.ErrnoException) => finish({ status: null, code: null, retryAfter: null, error: e.code ?? e.message, body: null }));
      req.end(payload);
    });
  }

  get(op: string, path: string, headers?: Record<string, string>) {
    return this.request(op, 'GET', path, undefined, headers);
  }
  post(op: string, path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request(op, 'POST', path, body, headers);
  }

  close() {
    this.agent.destroy();
  }
}

/** Group outcomes: count by status (or transport error) per operation. */
export function summarize(outcomes: Outcome[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const o of outcomes) {
    const key = o.status !== null ? `${o.status}${o.code ? ' ' + o.code : ''}` : `ERR ${o.error}`;
    (out[o.op] ??= {})[key] = (out[o.op][key] ?? 0) + 1;
  }
  return out;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

// ---------------------------------------------------------------------------------------------
// A web site whose pages have titles (for page-title jobs), optionally slow.

export interface PageSite {
  url: string;
  /** Fetches per path. */
  hits: Map<string, number>;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startPageSite(delayMs = 0): Promise<PageSite> {
  const hits = new Map<string, number>();
  let delay = delayMs;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const t = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Title of ${path}</title></head><body>ok</body></html>`);
    }, delay);
    req.on('close', () => clearTimeout(t));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    setDelay: (ms) => (delay = ms),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// WebSocket clients

/**
 * One stream client: records events (by type and article id) and reconcile frames; after a close
 * it reconnects with backoff, resuming from the last cursor it got, as a well-behaved client does.
 */
export class StreamClient {
  readonly events = new Map<string, number>();
  readonly reconciles: { reason: string; at: number }[] = [];
  readonly closes: { code: number; at: number }[] = [];
  readonly latencies: number[] = [];
  connects = 0;
  heartbeats = 0;
  private ws: WebSocket | null = null;
  private cursor: string | null = null;
  private stopped = false;
  private openedOnce: Promise<void>;
  private markOpen!: () => void;
  /** Pause reading (a slow client): the socket stops draining. */
  paused = false;

  constructor(
    private readonly url: string,
    private readonly origin: string,
    private readonly opts: { localAddress?: string; resume?: boolean; onEvent?: (e: any, at: number) => void } = {},
  ) {
    this.openedOnce = new Promise((r) => (this.markOpen = r));
    this.connect();
  }

  get opened() {
    return this.openedOnce;
  }

  get open() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  private connect() {
    if (this.stopped) return;
    const target = this.cursor && this.opts.resume !== false ? `${this.url}?cursor=${encodeURIComponent(this.cursor)}` : this.url;
    const ws = new WebSocket(target, { origin: this.origin, localAddress: this.opts.localAddress, perMessageDeflate: false });
    this.ws = ws;
    ws.on('open', () => {
      this.connects++;
      this.markOpen();
    });
    ws.on('message', (data) => {
      const now = Date.now();
      let f: any;
      try {
        f = JSON.parse(String(data));
      } catch {
        return;
      }
      if (Array.isArray(f.events)) {
        for (const e of f.events) {
          const k = `${e.type}:${e.id}`;
          this.events.set(k, (this.events.get(k) ?? 0) + 1);
          this.opts.onEvent?.(e, now);
        }
        if (typeof f.cursor === 'string') this.cursor = f.cursor;
      } else if (f.type === 'reconcile') this.reconciles.push({ reason: f.reason, at: now });
      else if (f.type === 'heartbeat') this.heartbeats++;
    });
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
    });
    ws.on('close', (code) => {
      this.closes.push({ code, at: Date.now() });
      if (!this.stopped) setTimeout(() => this.connect(), 200 + Math.random() * 300);
    });
  }

  pause() {
    this.paused = true;
    (this.ws as unknown as { _socket?: { pause(): void } })?._socket?.pause();
  }

  resumeReading() {
    this.paused = false;
    (this.ws as unknown as { _socket?: { resume(): void } })?._socket?.resume();
  }

  stop() {
    this.stopped = true;
    this.ws?.terminate();
  }
}

/** Every event in the stream after `afterId` (exclusive), as type:id keys with their stream ids. */
export async function streamEventsAfter(redis: Redis, streamKey: string, afterId: string): Promise<{ id: string; key: string; type: string }[]> {
  const out: { id: string; key: string; type: string }[] = [];
  let from = `(${afterId}`;
  for (;;) {
    const batch = (await redis.xrange(streamKey, from, '+', 'COUNT', 1000)) as [string, string[]][];
    for (const [id, fields] of batch) {
      const e = JSON.parse(fields[fields.indexOf('e') + 1]);
      out.push({ id, key: `${e.type}:${e.id}`, type: e.type });
    }
    if (batch.length < 1000) return out;
    from = `(${batch[batch.length - 1][0]}`;
  }
}

export async function lastStreamId(redis: Redis, streamKey: string): Promise<string> {
  const r = (await redis.xrevrange(streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
  return r[0]?.[0] ?? '0-0';
}

const PUBLIC_TYPES = new Set(['news.approved', 'news.tsunami', 'news.tsunami_promoted', 'news.sponsored']);

/**
 * For each client: the public events of the stream it did not get. A client that got a reconcile
 * frame was told to re-poll, so what it misses is covered ("reconciled"), not lost.
 */
export function auditClients(clients: StreamClient[], expected: { key: string; type: string }[]) {
  const wanted = expected.filter((e) => PUBLIC_TYPES.has(e.type));
  let complete = 0;
  let reconciled = 0;
  const lost: { client: number; missing: string[] }[] = [];
  let duplicates = 0;
  clients.forEach((c, i) => {
    for (const n of c.events.values()) if (n > 1) duplicates += n - 1;
    const missing = wanted.filter((e) => !c.events.has(e.key)).map((e) => e.key);
    if (missing.length === 0) complete++;
    else if (c.reconciles.length > 0) reconciled++;
    else lost.push({ client: i, missing });
  });
  return { clients: clients.length, expectedEvents: wanted.length, complete, reconciled, lost, duplicates };
}
