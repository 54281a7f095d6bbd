/**
 * Broadcaster test harness: a real broadcaster listening on 127.0.0.1 (own stream key on this
 * file's Redis prefix), a publisher on the same stream, and real `ws` clients that record every
 * frame with its arrival time.
 */
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { EventPublisher, eventStreamKey, type EventType, type NewsEvent } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { createBroadcaster, type Broadcaster, type BroadcasterOptions } from '../../src/stream/server.js';
import { createTestEnv, type TestEnv } from './context.js';
import { waitFor } from './wait.js';

export const ORIGIN = 'http://127.0.0.1:8000';

interface Frame {
  at: number;
  data: any;
}

export class TestClient {
  readonly frames: Frame[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  /** HTTP status when the handshake was refused. */
  rejectedStatus: number | null = null;
  /** Close code and reason once closed. */
  closeInfo: { code: number; reason: string } | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.frames.push({ at: Date.now(), data: JSON.parse(String(data)) }));
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => {
        this.rejectedStatus = res.statusCode ?? null;
        res.resume();
        reject(new Error(`handshake refused with ${res.statusCode}`));
      });
      ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        this.closeInfo = { code, reason: String(reason) };
        resolve(this.closeInfo);
      }),
    );
  }

  batches(): Frame[] {
    return this.frames.filter((f) => Array.isArray(f.data.events));
  }

  events(): NewsEvent[] {
    return this.batches().flatMap((f) => f.data.events as NewsEvent[]);
  }

  controls(type: string): Frame[] {
    return this.frames.filter((f) => f.data.type === type);
  }

  /** The cursor of the last batch frame received. */
  lastCursor(): string | undefined {
    const b = this.batches();
    return b.length ? b[b.length - 1].data.cursor : undefined;
  }

  async waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    await waitUntil(cond, what, timeoutMs);
  }

  async waitForEvents(n: number, timeoutMs = 5000): Promise<NewsEvent[]> {
    await waitUntil(() => this.events().length >= n, `${n} events (have ${this.events().length})`, timeoutMs);
    return this.events();
  }

  /** Close from the client side and wait for the close handshake. */
  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

export async function waitUntil(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  await waitFor(cond, { what, timeout: timeoutMs, interval: 5 });
}

/** Pacing (spacing publishes out), not waiting: tests wait with waitUntil / waitFor, or quietFor for a check window. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ConnectOptions {
  origin?: string | null;
  cookie?: string;
  headers?: Record<string, string>;
  cursor?: string;
  /** Query parameters (filters); an array repeats the parameter. */
  query?: Record<string, string | string[]>;
  path?: string;
  localAddress?: string;
  autoPong?: boolean;
}

export function connect(base: string, o: ConnectOptions = {}): TestClient {
  const headers: Record<string, string> = { ...o.headers };
  if (o.cookie) headers.cookie = o.cookie;
  const url = new URL(o.path ?? '/ws/news/', base);
  if (o.cursor !== undefined) url.searchParams.set('cursor', o.cursor);
  for (const [k, v] of Object.entries(o.query ?? {})) for (const x of [v].flat()) url.searchParams.append(k, x);
  const origin = o.origin === undefined ? ORIGIN : o.origin;
  const ws = new WebSocket(url, {
    headers,
    ...(origin === null ? {} : { origin }),
    localAddress: o.localAddress,
    autoPong: o.autoPong ?? true,
  });
  ws.on('error', () => undefined);
  return new TestClient(ws);
}

/** Open a client and wait for its handshake. */
export async function connectOpen(base: string, o: ConnectOptions = {}): Promise<TestClient> {
  const c = connect(base, o);
  await c.opened;
  return c;
}

export function makeEvent(type: EventType, id: number, extra: Partial<NewsEvent> = {}): NewsEvent {
  return {
    type,
    id,
    slug: `article-${id}`,
    status: type === 'news.submitted' ? 'submitted' : 'approved',
    headline: `Headline ${id}`,
    date_posted: new Date(Date.UTC(2026, 0, 1, 0, 0, id % 60)).toISOString(),
    origin: type === 'news.sponsored' ? 'x402_ad' : 'manual',
    sponsored: type === 'news.sponsored' ? { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } : null,
    ...extra,
  };
}

/** event_log.attrs as the relay passes it (kinds left out are empty). */
export interface ArticleAttrs {
  tags?: string[];
  token_addresses?: string[];
  token_symbols?: string[];
}

export interface RunningBroadcaster {
  b: Broadcaster;
  url: string;
  /** http://127.0.0.1:<port> (SSE and plain HTTP). */
  http: string;
  port: number;
  close(): Promise<void>;
}

let streams = 0;

export class BroadcasterHarness {
  readonly log = createLogger('test-ws', 'silent');
  readonly streamKey: string;
  readonly publisher: EventPublisher;
  private readonly running = new Set<RunningBroadcaster>();

  private constructor(
    readonly env: TestEnv,
    readonly redis: Redis,
    maxLen: number,
  ) {
    this.streamKey = `${eventStreamKey(env.prefix)}:${++streams}`;
    this.publisher = new EventPublisher(redis, this.streamKey, maxLen);
  }

  static async create(maxLen = 100_000): Promise<BroadcasterHarness> {
    const env = await createTestEnv();
    return new BroadcasterHarness(env, createRedis(env.redisUrl, 'command', 'test-ws'), maxLen);
  }

  options(o: Partial<BroadcasterOptions> = {}): BroadcasterOptions {
    return {
      redisUrl: this.env.redisUrl,
      streamKey: this.streamKey,
      trustedOrigin: ORIGIN,
      log: this.log,
      jwtSecret: this.env.config.JWT_SECRET,
      readBlockMs: 1000,
      ...o,
    };
  }

  /** A broadcaster on this harness's stream, listening on `port` (0: any free port). */
  async start(o: Partial<BroadcasterOptions> = {}, port = 0): Promise<RunningBroadcaster> {
    const b = createBroadcaster(this.options(o));
    await b.ready;
    await new Promise<void>((resolve) => b.server.listen(port, '127.0.0.1', resolve));
    const actual = (b.server.address() as AddressInfo).port;
    const r: RunningBroadcaster = {
      b,
      port: actual,
      url: `ws://127.0.0.1:${actual}`,
      http: `http://127.0.0.1:${actual}`,
      close: async () => {
        this.running.delete(r);
        await b.close();
      },
    };
    this.running.add(r);
    return r;
  }

  publish(event: NewsEvent): Promise<string> {
    return this.publisher.publish(event);
  }

  /**
   * Publish events as the relay does (EventPublisher.publishJson): field `e` and, for events about
   * an article, field `a` with its filter attributes. One pipeline, in order.
   */
  publishArticles(events: [NewsEvent, ArticleAttrs | null][]): Promise<void> {
    return this.publisher.publishJson(
      events.map(([e, a]) => ({ e: JSON.stringify(e), a: a === null ? null : JSON.stringify({ tags: [], token_addresses: [], token_symbols: [], ...a }) })),
    );
  }

  async publishMany(events: NewsEvent[]): Promise<string[]> {
    const ids: string[] = [];
    for (const e of events) ids.push(await this.publish(e));
    return ids;
  }

  /**
   * Publishes 4 KB events (ids 1, 2, ...), 200 a pipeline, until `b` holds a client's backlog (the
   * kernel's socket buffers absorb the first MBs) or 20,000 went out; returns how many went out.
   */
  async floodUntilBacklog(b: Pick<Broadcaster, 'stats'>, what: string): Promise<number> {
    const headline = 'x'.repeat(4000);
    let sent = 0;
    const overflowed = async () => {
      const p = this.redis.pipeline();
      for (let i = 0; i < 200; i++) p.xadd(this.streamKey, '*', 'e', JSON.stringify(makeEvent('news.approved', ++sent, { headline })));
      await p.exec();
      return b.stats().backlogs > 0 || sent >= 20_000;
    };
    if (b.stats().backlogs === 0) await waitFor(overflowed, { timeout: 60_000, what });
    return sent;
  }

  async close(): Promise<void> {
    for (const r of [...this.running]) await r.close();
    this.redis.disconnect();
    await this.env.cleanup();
  }
}
