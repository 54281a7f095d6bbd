/**
 * Webhook receivers for the webhook drill and benchmark: one HTTP server on 127.0.0.1 serving many
 * endpoint paths (`/e/<n>`), recording every delivery it gets (path, webhook-id, raw body, headers,
 * arrival time) and answering per path as told: a status, after a delay, or never (hang).
 * Plus publishing real events: an article with attributes, approved by an editor (news.approved,
 * recorded with its attrs in the approval's transaction); resolves at the commit.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Db } from '../../src/platform/db.js';
import { transitionArticle } from '../../src/editor/service.js';

export interface Delivery {
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
  /** What the sink answered (null: it hangs). */
  status: number | null;
}

type SinkAnswer = { status: number; delayMs?: number } | { hang: true };

interface Sink {
  base: string;
  url(path: string): string;
  deliveries: Delivery[];
  /** Called for each delivery as it arrives (after it is recorded). */
  onDelivery?: (d: Delivery) => void;
  answer: (path: string) => SinkAnswer;
  /** Requests being answered or hanging right now, by path. */
  open: Map<string, number>;
  close(): Promise<void>;
}

export async function startSink(answer: (path: string) => SinkAnswer = () => ({ status: 200 })): Promise<Sink> {
  const sockets = new Set<Socket>();
  const sink: Sink = {
    base: '',
    url: (p) => `${sink.base}${p}`,
    deliveries: [],
    answer,
    open: new Map(),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const d: Delivery = {
        path,
        webhookId: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.timeOrigin + performance.now(),
        status: null,
      };
      const a = sink.answer(path);
      if (!('hang' in a)) d.status = a.status;
      sink.deliveries.push(d);
      sink.onDelivery?.(d);
      sink.open.set(path, (sink.open.get(path) ?? 0) + 1);
      res.on('close', () => sink.open.set(path, (sink.open.get(path) ?? 1) - 1));
      if ('hang' in a) return;
      const send = () => {
        res.writeHead(a.status, { 'content-type': 'text/plain', 'content-length': '2' });
        res.end('ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.maxConnections = 100_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  sink.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return sink;
}

let seq = 0;

/** An article with these attributes, approved by `editorId`; resolves when its news.approved has committed. */
export async function publishApproved(
  db: Db,
  editorId: number,
  attrs: { tags?: string[]; token_addresses?: string[]; token_symbols?: string[] },
): Promise<{ articleId: number; committedAt: number }> {
  const n = ++seq;
  const url = `https://webhook-load.example/${process.pid}/${n}`;
  const a = await db
    .insertInto('articles')
    .values({
      slug: `whl-${process.pid}-${n}`,
      headline: `Webhook load story ${n}`,
      url,
      normalized_url: url,
      status: 'submitted',
      submitted_by: editorId,
      tags: attrs.tags ?? [],
      token_addresses: attrs.token_addresses ?? [],
      token_symbols: attrs.token_symbols ?? [],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const r = await transitionArticle(db, { id: a.id, action: 'approve', editorId });
  if (!r.ok) throw new Error(`approving article ${a.id} failed: ${JSON.stringify(r)}`);
  return { articleId: a.id, committedAt: performance.timeOrigin + performance.now() };
}
