/**
 * SSE clients for broadcaster tests: the `eventsource` npm package (a WHATWG EventSource, with its
 * own reconnect and Last-Event-ID handling) with the Origin and Cookie headers a browser would
 * send, and a raw HTTP reader for what EventSource hides (comments, headers, status, a client that
 * does not read).
 */
import http from 'node:http';
import { EventSource } from 'eventsource';
import { ORIGIN, waitUntil } from './broadcaster-harness.js';

interface SseMessage {
  at: number;
  /** The SSE event name: `message` for events, `reconcile`. */
  name: string;
  data: any;
  lastEventId: string;
}

interface SseOptions {
  origin?: string | null;
  cookie?: string;
  query?: Record<string, string | string[]>;
  /** Sent on the first request only (EventSource sends its own on reconnects). */
  lastEventId?: string;
}

export function sseUrl(base: string, query: Record<string, string | string[]> = {}): URL {
  const url = new URL('/sse/news/', base);
  for (const [k, v] of Object.entries(query)) for (const x of [v].flat()) url.searchParams.append(k, x);
  return url;
}

export class SseTestClient {
  readonly messages: SseMessage[] = [];
  readonly es: EventSource;
  /** Requests made (the first connect and each reconnect), with the Last-Event-ID each carried. */
  readonly requests: { lastEventId: string | null }[] = [];
  opens = 0;
  errors: { code?: number; message?: string }[] = [];

  constructor(base: string, o: SseOptions = {}) {
    const origin = o.origin === undefined ? ORIGIN : o.origin;
    this.es = new EventSource(sseUrl(base, o.query), {
      fetch: (input, init) => {
        const headers: Record<string, string> = { ...(init?.headers as Record<string, string>) };
        if (origin !== null) headers.origin = origin;
        if (o.cookie) headers.cookie = o.cookie;
        if (o.lastEventId !== undefined && this.requests.length === 0) headers['last-event-id'] = o.lastEventId;
        this.requests.push({ lastEventId: headers['Last-Event-ID'] ?? headers['last-event-id'] ?? null });
        return fetch(input, { ...init, headers });
      },
    });
    const record = (name: string) => (e: MessageEvent) => this.messages.push({ at: Date.now(), name, data: JSON.parse(e.data), lastEventId: e.lastEventId });
    this.es.addEventListener('message', record('message'));
    this.es.addEventListener('reconcile', record('reconcile'));
    this.es.addEventListener('open', () => this.opens++);
    this.es.addEventListener('error', (e) => this.errors.push({ code: (e as { code?: number }).code, message: (e as { message?: string }).message }));
  }

  events(): any[] {
    return this.messages.filter((m) => m.name === 'message').map((m) => m.data);
  }

  reconciles(): any[] {
    return this.messages.filter((m) => m.name === 'reconcile').map((m) => m.data);
  }

  async waitOpen(timeoutMs = 5000): Promise<void> {
    await waitUntil(() => this.es.readyState === this.es.OPEN, 'the SSE stream to open', timeoutMs);
  }

  async waitForEvents(n: number, timeoutMs = 5000): Promise<any[]> {
    await waitUntil(() => this.events().length >= n, `${n} SSE events (have ${this.events().length})`, timeoutMs);
    return this.events();
  }

  close(): void {
    this.es.close();
  }
}

/** Open an EventSource and wait until it is connected. */
export async function sseOpen(base: string, o: SseOptions = {}): Promise<SseTestClient> {
  const c = new SseTestClient(base, o);
  await c.waitOpen();
  return c;
}

interface RawSse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Everything received so far. */
  text(): string;
  res: http.IncomingMessage;
  ended: Promise<void>;
  close(): void;
}

/** A plain HTTP request to the SSE path: the status, headers and raw body text as it arrives. */
export function rawSse(
  base: string,
  o: { method?: string; headers?: Record<string, string>; query?: Record<string, string | string[]>; origin?: string | null } = {},
): Promise<RawSse> {
  const origin = o.origin === undefined ? ORIGIN : o.origin;
  const headers: Record<string, string> = { accept: 'text/event-stream', ...(origin === null ? {} : { origin }), ...o.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(sseUrl(base, o.query), { method: o.method ?? 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      const ended = new Promise<void>((r) => res.on('close', () => r()));
      resolve({ status: res.statusCode!, headers: res.headers, text: () => body, res, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
