/**
 * Retention jobs: wire items with tombstones (a feed that keeps serving a 40-day-old item
 * neither re-ingests nor re-announces it), Telegram update ids, payment records past the accounting
 * horizon (their replay keys stay refused); batches of RETENTION_BATCH.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDeps } from '../../jobs/define.js';
import { job as paymentsPrune } from '../../jobs/payments-prune.js';
import { job as telegramUpdatesPrune } from '../../jobs/telegram-updates-prune.js';
import { job as wireFetch } from '../../jobs/wire-fetch.js';
import { job as wirePrune } from '../../jobs/wire-prune.js';
import type { Config } from '../../src/platform/config.js';
import { insertPayment, newPaymentId, type NewPayment } from '../../src/payments/queries.js';
import { addSource } from '../../src/wire/queries.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let jobDeps: JobDeps;
let server: http.Server;
let base: string;
const DAY = 86_400_000;
const oldDate = new Date(Date.now() - 40 * DAY);
const ctx = { attempt: 1, jobId: 'test' };

function rss(items: { url: string; title: string; date: Date }[]) {
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Old wire</title>${items
    .map((i) => `<item><title>${i.title}</title><link>${i.url}</link><pubDate>${i.date.toUTCString()}</pubDate></item>`)
    .join('')}</channel></rss>`;
}

let feedItems: { url: string; title: string; date: Date }[] = [];

beforeAll(async () => {
  // A feed without validators, so every fetch gets the full list (the 40-day-old item included).
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml' });
    res.end(rss(feedItems));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps = await createTestDeps();
  const config = { ...deps.config, OUTBOUND_ALLOW_PRIVATE: true, RETENTION_BATCH: 1000, RETENTION_PAUSE_MS: 0 } as Config;
  jobDeps = { config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer };
});

afterAll(async () => {
  await deps.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

async function tsunamiEventsFor(urlPart: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_log WHERE type = 'news.tsunami' AND payload::text LIKE ${'%' + urlPart + '%'}`.execute(deps.db);
  return r.rows[0].n;
}

async function wireItem(normalizedUrl: string) {
  return deps.db.selectFrom('wire_items').selectAll().where('normalized_url', '=', normalizedUrl).executeTakeFirst();
}

describe('wire retention', () => {
  it('a feed that keeps serving a 40-day-old item: deleted with its receipts, tombstoned, never re-ingested or re-announced', async () => {
    const oldUrl = 'https://oldnews.example/2026/story-from-last-month';
    const freshUrl = 'https://oldnews.example/2026/story-from-today';
    feedItems = [
      { url: oldUrl, title: 'A story from last month', date: oldDate },
      { url: freshUrl, title: 'A story from today', date: new Date() },
    ];
    const src = await addSource(deps.db, { name: 'Old wire', url: `${base}/feed.xml` });
    const first = await wireFetch.run({ source_id: src.id }, jobDeps, ctx);
    expect(first).toMatchObject({ created: 2 });
    // The old item was first seen 40 days ago (as if the service had been running since).
    await sql`UPDATE wire_items SET ingested_at = ${oldDate} WHERE normalized_url = ${oldUrl}`.execute(deps.db);
    await sql`UPDATE wire_receipts SET ingested_at = ${oldDate} WHERE item_url = ${oldUrl}`.execute(deps.db);
    const old = (await wireItem(oldUrl))!;
    expect(await deps.db.selectFrom('wire_receipts').select('id').where('wire_item_id', '=', old.id).execute()).toHaveLength(1);
    expect(await tsunamiEventsFor('story-from-last-month')).toBe(1);

    const r = await wirePrune.run({}, jobDeps, ctx);
    expect(r.items).toMatchObject({ deleted: 1, more: false });
    expect(await wireItem(oldUrl)).toBeUndefined();
    expect(await deps.db.selectFrom('wire_receipts').select('id').where('wire_item_id', '=', old.id).execute()).toHaveLength(0);
    expect(await wireItem(freshUrl)).toBeDefined();
    const tomb = await deps.db.selectFrom('wire_item_tombstones').selectAll().execute();
    expect(tomb.map((t) => [Buffer.from(t.url_sha256).toString('hex'), t.source_id])).toEqual([[createHash('sha256').update(oldUrl).digest('hex'), src.id]]);

    // The feed still lists it: the next fetches store and announce nothing.
    for (let i = 0; i < 2; i++) {
      const again = await wireFetch.run({ source_id: src.id }, jobDeps, ctx);
      expect(again).toMatchObject({ items: 2, created: 0 });
    }
    expect(await wireItem(oldUrl)).toBeUndefined();
    expect(await tsunamiEventsFor('story-from-last-month')).toBe(1);

    // Without its tombstone (kept WIRE_TOMBSTONE_RETENTION_DAYS) the same feed would bring it back as new.
    await wirePrune.run({}, { ...jobDeps, config: { ...jobDeps.config, WIRE_TOMBSTONE_RETENTION_DAYS: 1 } }, ctx);
    expect(await deps.db.selectFrom('wire_item_tombstones').select('url_sha256').execute()).toHaveLength(1);
    await sql`UPDATE wire_item_tombstones SET deleted_at = now() - interval '2 days'`.execute(deps.db);
    const pruned = await wirePrune.run({}, { ...jobDeps, config: { ...jobDeps.config, WIRE_TOMBSTONE_RETENTION_DAYS: 1 } }, ctx);
    expect(pruned.tombstones.deleted).toBe(1);
    expect(await wireFetch.run({ source_id: src.id }, jobDeps, ctx)).toMatchObject({ created: 1 });
    expect(await tsunamiEventsFor('story-from-last-month')).toBe(2);
  });

  it('deletes in batches of RETENTION_BATCH and keeps items inside the window', async () => {
    await sql`
      INSERT INTO wire_items (normalized_url, url, title, source_name, source_url, ingested_at)
      SELECT 'https://bulk.example/' || g, 'https://bulk.example/' || g, 'bulk ' || g, 'bulk', 'https://bulk.example/feed', now() - interval '31 days' - g * interval '1 second'
      FROM generate_series(1, 2500) g`.execute(deps.db);
    await sql`
      INSERT INTO wire_items (normalized_url, url, title, source_name, source_url, ingested_at)
      SELECT 'https://bulk.example/recent/' || g, 'https://bulk.example/recent/' || g, 'recent ' || g, 'bulk', 'https://bulk.example/feed', now() - interval '29 days'
      FROM generate_series(1, 10) g`.execute(deps.db);
    const r = await wirePrune.run({}, jobDeps, ctx);
    expect(r.items).toEqual({ deleted: 2500, batches: 3, more: false });
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM wire_items WHERE normalized_url LIKE 'https://bulk.example/%'`.execute(deps.db);
    expect(left.rows[0].n).toBe(10);
    const tombs = await sql<{ n: number }>`SELECT count(*)::int AS n FROM wire_item_tombstones`.execute(deps.db);
    expect(tombs.rows[0].n).toBeGreaterThanOrEqual(2500);
  });
});

describe('Telegram update retention', () => {
  it('deletes update ids older than TELEGRAM_UPDATES_RETENTION_DAYS (7) and keeps newer ones', async () => {
    await sql`
      INSERT INTO telegram_updates (update_id, kind, received_at)
      SELECT g, 'message', now() - (g || ' days')::interval - interval '1 hour' FROM generate_series(1, 10) g`.execute(deps.db);
    const r = await telegramUpdatesPrune.run({}, jobDeps, ctx);
    // Received 7, 8, 9 and 10 days (and an hour) ago: past the 7-day cutoff. An hour clear of it, so
    // the clocks of the test, the job and PostgreSQL need not agree to the millisecond.
    expect(r.deleted).toBe(4);
    const left = await deps.db.selectFrom('telegram_updates').select('update_id').orderBy('update_id').execute();
    expect(left.map((x) => Number(x.update_id))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('payment retention', () => {
  const payment = (over: Partial<NewPayment>): NewPayment => ({
    id: newPaymentId(),
    method: 'mainnet_transfer',
    purpose: 'intel_report',
    replayKey: `eth:1:0x${createHash('sha256').update(String(Math.random())).digest('hex')}`,
    network: 'eip155:1',
    asset: '0x' + 'a'.repeat(40),
    payer: '0x' + 'b'.repeat(40),
    payTo: '0x' + 'c'.repeat(40),
    amountAtomic: '1000',
    state: 'settled',
    validBefore: null,
    payload: null,
    transactionHash: null,
    resource: '/api/v1/intel/report/',
    ...over,
  });

  it('deletes settled and failed payments older than PAYMENT_RETENTION_DAYS, never pending ones; a deleted payment cannot be replayed', async () => {
    const oldSettled = payment({});
    const oldFailed = payment({ state: 'failed' });
    const oldVerified = payment({ method: 'x402', state: 'verified' });
    const recent = payment({});
    for (const p of [oldSettled, oldFailed, oldVerified, recent]) expect(await insertPayment(deps.db, p)).toEqual({ id: p.id });
    const horizon = jobDeps.config.PAYMENT_RETENTION_DAYS;
    expect(horizon).toBe(3653);
    await sql`UPDATE payments SET created_at = now() - make_interval(days => ${horizon + 1}) WHERE id IN (${oldSettled.id}, ${oldFailed.id}, ${oldVerified.id})`.execute(deps.db);
    const r = await paymentsPrune.run({}, jobDeps, ctx);
    expect(r.deleted).toBe(2);
    const left = (await deps.db.selectFrom('payments').select('id').execute()).map((x) => x.id).sort();
    expect(left).toEqual([oldVerified.id, recent.id].sort());
    // The same transaction presented again: refused as a replay (insert returns null), as before the deletion.
    expect(await insertPayment(deps.db, { ...payment({}), replayKey: oldSettled.replayKey })).toBeNull();
    expect(await insertPayment(deps.db, { ...payment({}), replayKey: oldFailed.replayKey })).toBeNull();
    expect(await insertPayment(deps.db, { ...payment({}), replayKey: recent.replayKey })).toBeNull();
    const fresh = payment({});
    expect(await insertPayment(deps.db, fresh)).toEqual({ id: fresh.id });
  });
});
