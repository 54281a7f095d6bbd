/**
 * Reference client for the live stream at /ws/news/ (Node, `ws` package).
 *
 * What it does, and why:
 * - sends `Origin` (the server refuses a handshake without the trusted origin with HTTP 403) and,
 *   when given an access token, the `access_token` cookie (staff see pre-publication events);
 * - reconnects after any close it did not ask for: 1001 (server going away), 4003 (over capacity),
 *   a cut without a close frame (transport loss), a refused handshake (except 400: a bad filter
 *   stays bad, so it stops and reports the server's message); waits an exponentially
 *   growing, fully jittered delay first (after 4003 at least the fourth step), and starts over
 *   once a connection delivered a frame;
 * - treats 90 s without any frame as a dead stream (the server sends a heartbeat about every
 *   25 s): it drops the socket and reconnects;
 * - remembers the `cursor` of the last batch and reconnects with `?cursor=`, so the server replays
 *   what was missed exactly once;
 * - calls `repoll` on every `{type: "reconcile"}` frame (the spec's rule 4: re-poll
 *   GET /api/v1/news/; `fetchNewsFeed` does that), and after a reconnect without a cursor, when
 *   nothing can tell what was missed.
 *
 * Filters (`types`, `token_address`, `token_symbol`, `tag`) go in the url's query string; they are
 * kept on every reconnect.
 *
 * ```ts
 * const stream = new NewsStream({
 *   url: 'ws://127.0.0.1:8001/ws/news/?token_symbol=ETH&tag=defi',
 *   origin: 'http://127.0.0.1:8000',
 *   onEvents: (events) => render(events),
 *   repoll: async () => render(await fetchNewsFeed('http://127.0.0.1:8000')),
 * });
 * stream.start();
 * // ... later
 * await stream.stop();
 * ```
 */
import WebSocket from 'ws';
import type { NewsEvent } from '../platform/events/events.js';

export type StreamState = 'connecting' | 'open' | 'waiting' | 'stopped';

interface BatchMessage {
  events: NewsEvent[];
  t: number;
  /** Additive: where to resume after this frame. */
  cursor?: string;
}

interface NewsStreamOptions {
  /** The stream's URL, e.g. ws://127.0.0.1:8001/ws/news/ */
  url: string;
  /** Sent as the Origin header; must equal the server's TRUSTED_ORIGIN. */
  origin: string;
  /** An access token to send as the `access_token` cookie; asked again at every connect. */
  accessToken?: () => string | undefined | Promise<string | undefined>;
  /** Events of one batch frame, in the order sent. */
  onEvents: (events: NewsEvent[], frame: BatchMessage) => void;
  /** Re-poll the REST feed (GET /api/v1/news/): the live stream may have missed events. */
  repoll: (reason: string) => void | Promise<void>;
  onState?: (state: StreamState, detail?: { code?: number; reason?: string; delayMs?: number }) => void;
  /** Resume from here on the first connect (a cursor saved earlier). */
  cursor?: string;
  /** First backoff step; doubles per failed attempt up to maxDelayMs. Default 500 ms. */
  baseDelayMs?: number;
  /** Default 30 s. */
  maxDelayMs?: number;
  /** Default 90 s (spec Events, rule 3). */
  deadAfterMs?: number;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^attempt)]. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** GET {apiBase}/api/v1/news/: the feed to re-poll on reconcile. */
export async function fetchNewsFeed(apiBase: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(new URL('/api/v1/news/', apiBase), { headers: { accept: 'application/json' }, ...init });
  if (!res.ok) throw new Error(`GET /api/v1/news/ answered ${res.status}`);
  return res.json();
}

export class NewsStream {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private stopped = true;
  private everConnected = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private deadTimer: NodeJS.Timeout | null = null;
  private cursorValue: string | undefined;

  constructor(private readonly opts: NewsStreamOptions) {
    this.cursorValue = opts.cursor;
  }

  /** The cursor of the last batch received (save it to resume in a later process). */
  get cursor(): string | undefined {
    return this.cursorValue;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  /** Close for good (no reconnect). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.clearDeadTimer();
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1000, 'client done');
        setTimeout(() => {
          ws.terminate();
          resolve();
        }, 2000).unref();
      });
    }
    this.opts.onState?.('stopped');
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.opts.onState?.('connecting');
    const url = new URL(this.opts.url);
    if (this.cursorValue) url.searchParams.set('cursor', this.cursorValue);
    const headers: Record<string, string> = {};
    try {
      const token = await this.opts.accessToken?.();
      if (token) headers.cookie = `access_token=${encodeURIComponent(token)}`;
    } catch {
      // No token today: connect anonymously.
    }
    if (this.stopped) return;
    const resuming = this.cursorValue !== undefined;
    const reconnecting = this.everConnected;
    const ws = new WebSocket(url, { origin: this.opts.origin, headers });
    this.ws = ws;
    let gotFrame = false;

    ws.on('open', () => {
      this.everConnected = true;
      this.opts.onState?.('open');
      this.armDeadTimer(ws);
      // Without a cursor nothing tells what happened while we were away.
      if (reconnecting && !resuming) void this.callRepoll('reconnected');
    });
    ws.on('message', (data) => {
      this.armDeadTimer(ws);
      if (!gotFrame) {
        gotFrame = true;
        this.attempt = 0;
      }
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      if (Array.isArray(msg.events)) {
        const frame = msg as unknown as BatchMessage;
        if (typeof frame.cursor === 'string') this.cursorValue = frame.cursor;
        this.opts.onEvents(frame.events, frame);
      } else if (msg.type === 'reconcile') {
        void this.callRepoll(String(msg.reason ?? 'reconcile'));
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      if (res.statusCode === 400) {
        // A refused filter: reconnecting would be refused the same way.
        let body = '';
        res.on('data', (d: Buffer) => (body += d));
        res.once('close', () => {
          if (this.ws !== ws) return;
          this.ws = null;
          this.stopped = true;
          this.clearDeadTimer();
          ws.terminate();
          let reason = 'bad request';
          try {
            reason = String((JSON.parse(body) as { error?: { message?: string } }).error?.message ?? reason);
          } catch {
            // not the API's error shape
          }
          this.opts.onState?.('stopped', { code: 400, reason });
        });
        return;
      }
      res.resume();
      ws.terminate();
      this.scheduleReconnect(ws, res.statusCode ?? 0, 'handshake refused');
    });
    ws.on('error', () => undefined); // a close follows
    ws.on('close', (code, reason) => this.scheduleReconnect(ws, code, String(reason)));
  }

  private scheduleReconnect(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return; // already handled (unexpected-response, then close)
    this.ws = null;
    this.clearDeadTimer();
    if (this.stopped) return;
    // Over capacity: the server is full, so do not come back within the first steps.
    if (code === 4003) this.attempt = Math.max(this.attempt, 3);
    const delayMs = backoffDelay(this.attempt++, this.opts.baseDelayMs ?? 500, this.opts.maxDelayMs ?? 30_000);
    this.opts.onState?.('waiting', { code, reason, delayMs });
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private armDeadTimer(ws: WebSocket): void {
    this.clearDeadTimer();
    this.deadTimer = setTimeout(() => {
      // No frame, not even a heartbeat: the stream is dead. Drop it; the close reconnects.
      if (this.ws === ws) ws.terminate();
    }, this.opts.deadAfterMs ?? 90_000);
  }

  private clearDeadTimer(): void {
    if (this.deadTimer) clearTimeout(this.deadTimer);
    this.deadTimer = null;
  }

  private async callRepoll(reason: string): Promise<void> {
    try {
      await this.opts.repoll(reason);
    } catch {
      // The caller's re-poll failed; the next reconcile or reconnect tries again.
    }
  }
}
