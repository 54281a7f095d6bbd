/**
 * Webhook deliveries end to end, on real PostgreSQL and Redis and local HTTP receivers: an editor's
 * approval commits news.approved, the relay fans it out to matching endpoints in its transaction,
 * the webhook-deliver worker POSTs it. Signatures are checked with the Standard Webhooks reference
 * verifier (the `standardwebhooks` package), never with the project's own code.
 */
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import { retryHorizonMs } from '../../src/webhooks/rules/retry.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { recordEvents, recordEventsCommitted } from '../../src/platform/events/log.js';
import { insertEndpoint, insertTestDelivery } from '../../src/webhooks/queries.js';
import { deliverEndpoint } from '../../src/webhooks/deliver.js';
import { fanOutWebhooks } from '../../src/webhooks/fanout.js';
import { DEV_WEBHOOK_KEY, encryptSecret, generateSecret } from '../../src/webhooks/secrets.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { relayed } from '../support/relay.js';
import request from '../support/request.js';
import { approveArticle, startReceiver, startWebhookWorkers, until, type Receiver, type ReceivedRequest, type WebhookWorkers } from '../support/webhooks.js';
import { quietFor } from '../support/wait.js';

const RETRY_BASE_MS = 150;
/** The attempt timeout: healthy endpoints must be served before any hanging attempt ends, even on a loaded machine. */
const TIMEOUT_MS = 4000;
const PER_ENDPOINT = 2;
const SLOTS = 16;

let deps: TestDeps;
let http: ReturnType<typeof request>;
let owner: Session;
let editor: Session;
let rx: Receiver;

beforeAll(async () => {
  deps = await createTestDeps({
    WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
    WEBHOOK_CONCURRENCY: String(SLOTS),
  });
  http = request(createApp(deps));
  owner = await sessionFor(deps.db, deps.config.JWT_SECRET);
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
  const k = generateApiKey();
  await insertApiKey(deps.db, { id: generateKeyId(), ...k, name: 'wh', email: null, useCase: null, userId: owner.userId, tier: 'enterprise' });
  rx = await startReceiver((req) => answers.get(req.path)?.(req) ?? { status: 200 });
});
afterAll(async () => {
  await rx?.close();
  await http?.close();
  await deps?.close();
});

/** Per-path behaviour of the shared receiver. */
const answers = new Map<string, (req: ReceivedRequest) => { status?: number; hang?: boolean; delayMs?: number; headers?: Record<string, string>; body?: string }>();
let pathSeq = 0;
const freshPath = (name: string) => `/${name}/${++pathSeq}`;

async function endpoint(path: string, extra: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> {
  const r = await http.post('/api/v1/webhooks/', { url: rx.url(path), ...extra }, owner.bearer);
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, secret: r.body.secret };
}

const headersOf = (q: ReceivedRequest) => ({
  'webhook-id': q.headers['webhook-id'],
  'webhook-timestamp': q.headers['webhook-timestamp'],
  'webhook-signature': q.headers['webhook-signature'],
});

async function deliveriesOf(endpointId: number) {
  return deps.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();
}

async function eventPayload(articleId: number, type = 'news.approved') {
  const r = await sql<{ event_id: string; payload: string; recorded_at: Date }>`
    SELECT event_id, payload::text AS payload, recorded_at FROM event_log WHERE article_id = ${articleId} AND type = ${type} ORDER BY event_id DESC LIMIT 1`.execute(deps.db);
  return { eventId: Number(r.rows[0].event_id), payload: r.rows[0].payload, recordedAt: r.rows[0].recorded_at };
}

/** Everything pending is finished (and nothing is mid-attempt). */
async function settled(endpointIds: number[], timeoutMs = 10_000) {
  await relayed(deps, timeoutMs);
  await until(
    'deliveries settled',
    async () => {
      const r = await deps.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', 'in', endpointIds).where('state', '=', 'pending').execute();
      return r.length === 0;
    },
    timeoutMs,
  );
}

describe('without a running worker', () => {
  it('SSRF: a URL that resolves to a loopback address is refused at the attempt when OUTBOUND_ALLOW_PRIVATE is off', async () => {
    // Inserted below the API (whose validation refuses such URLs outright): a name that passed
    // creation and later resolves to a private address, like a DNS rebinding.
    const path = freshPath('ssrf');
    const ins = await insertEndpoint(
      deps.db,
      { kind: 'user', userId: owner.userId },
      {
        url: `http://localhost:${new URL(rx.base).port}${path}`,
        description: null,
        eventTypes: ['news.approved'],
        filters: { tags: null, token_addresses: null, token_symbols: null },
        secretEnc: encryptSecret(DEV_WEBHOOK_KEY, generateSecret()),
      },
      1000,
    );
    if (!ins.ok) throw new Error('cap');
    const d = await insertTestDelivery(deps.db, ins.row.id, '{"n":1}');
    const strict = { ...deps, config: { ...deps.config, OUTBOUND_ALLOW_PRIVATE: false }, enqueue: deps.queue.enqueuer };
    const run = await deliverEndpoint(strict, ins.row.id);
    expect(run).toMatchObject({ attempted: 1, succeeded: 0, failed: 1 });
    expect(rx.byPath(path)).toHaveLength(0);
    const row = await deps.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'pending', attempts: 1, last_status: null, last_error: 'blocked_address' });
    // Same delivery with private addresses allowed (this test environment): it arrives.
    await deps.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).where('id', '=', d.id).execute();
    await deliverEndpoint({ ...strict, config: deps.config }, ins.row.id);
    expect(rx.byPath(path)).toHaveLength(1);
    await deps.db.deleteFrom('webhook_endpoints').where('id', '=', ins.row.id).execute();
  });

  it('a re-relayed batch does not deliver twice (unique per endpoint and event)', async () => {
    const ep = await endpoint(freshPath('dup'));
    const ids = await recordEventsCommitted(deps.db, [{ type: 'news.tsunami', articleId: null, payload: { type: 'news.tsunami', id: 1 } }]);
    const row = { event_id: ids[0], article_id: null, type: 'news.tsunami' as const, visibility: 'public' as const, payload: '{}', attrs: null };
    const key = {};
    expect(await deps.db.transaction().execute((trx) => fanOutWebhooks(key, trx, [row]))).toContain(ep.id);
    expect(await deps.db.transaction().execute((trx) => fanOutWebhooks(key, trx, [row]))).toEqual([]);
    expect((await deliveriesOf(ep.id)).filter((d) => d.event_id === ids[0])).toHaveLength(1);
    await http.delete(`/api/v1/webhooks/${ep.id}/`, undefined, owner.bearer);
    await deps.db.deleteFrom('event_outbox').execute();
  });
});

describe('with the worker running', () => {
  let workers: WebhookWorkers;
  beforeAll(async () => {
    workers = await startWebhookWorkers(deps, { sweepMs: 200 });
  });
  afterAll(async () => {
    await workers?.close();
  });

  it('an approved article arrives as a Standard Webhooks message that the reference verifier accepts', async () => {
    const path = freshPath('basic');
    const ep = await endpoint(path);
    const articleId = await approveArticle(deps, editor.userId, { tags: ['defi'], token_symbols: ['ETH'] });
    const [q] = await until('delivery', () => (rx.byPath(path).length ? rx.byPath(path) : null));
    const verified = new Webhook(ep.secret).verify(q.body, headersOf(q)) as { type: string; timestamp: string; data: Record<string, unknown> };
    const ev = await eventPayload(articleId);
    expect(verified.type).toBe('news.approved');
    expect(verified.timestamp).toBe(ev.recordedAt.toISOString());
    expect(verified.data).toEqual(JSON.parse(ev.payload));
    expect(verified.data.event_id).toBe(ev.eventId);
    // The body carries the stored event text byte for byte.
    expect(q.body).toContain(`"data":${ev.payload}`);
    expect(q.headers['content-type']).toBe('application/json');
    expect(q.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(q.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    // Tampering is caught by the verifier.
    expect(() => new Webhook(ep.secret).verify(q.body.replace('news.approved', 'news.sponsored'), headersOf(q))).toThrow();
    expect(() => new Webhook(generateSecret()).verify(q.body, headersOf(q))).toThrow();
    await settled([ep.id]);
    const [d] = await deliveriesOf(ep.id);
    expect(q.headers['webhook-id']).toBe(`msg_${d.id}`);
    expect(d).toMatchObject({
      event_id: ev.eventId,
      event_type: 'news.approved',
      state: 'succeeded',
      attempts: 1,
      last_status: 200,
      last_error: null,
      last_response_excerpt: 'ok',
    });
    expect(d.last_latency_ms).toBeGreaterThanOrEqual(0);
    // The API shows it.
    const listed = await http.get(`/api/v1/webhooks/${ep.id}/deliveries/`, owner.bearer);
    expect(listed.body.results[0]).toMatchObject({
      id: d.id,
      webhook_id: `msg_${d.id}`,
      event_id: ev.eventId,
      state: 'succeeded',
      attempts: 1,
      last_status: 200,
      next_attempt_at: null,
    });
  });

  it('filters: each endpoint gets exactly the events whose article has one value of every listed kind; non-matching ones get nothing', async () => {
    const paths = {
      eth: freshPath('eth'),
      btcDefi: freshPath('btc-defi'),
      nft: freshPath('nft'),
      sponsoredOnly: freshPath('sponsored'),
      all: freshPath('all'),
      addr: freshPath('addr'),
    };
    const addr = '0x' + 'ab'.repeat(20);
    const eps = {
      eth: await endpoint(paths.eth, { filters: { token_symbols: ['eth'] } }),
      btcDefi: await endpoint(paths.btcDefi, { filters: { token_symbols: ['BTC'], tags: ['defi'] } }),
      nft: await endpoint(paths.nft, { filters: { tags: ['nft'] } }),
      sponsoredOnly: await endpoint(paths.sponsoredOnly, { event_types: ['news.sponsored'] }),
      all: await endpoint(paths.all),
      addr: await endpoint(paths.addr, { filters: { token_addresses: [addr.toUpperCase().replace('0X', '0x')] } }),
    };
    const a1 = await approveArticle(deps, editor.userId, { token_symbols: ['Eth'], tags: ['defi'] }); // eth (case-insensitive), all
    const a2 = await approveArticle(deps, editor.userId, { token_symbols: ['BTC', 'SOL'], tags: ['defi', 'l2'] }); // btcDefi, all
    const a3 = await approveArticle(deps, editor.userId, { token_symbols: ['BTC'], tags: ['memes'] }); // all (btcDefi needs defi too)
    const a4 = await approveArticle(deps, editor.userId, { token_addresses: [addr], tags: [] }); // addr, all
    // A wire item (news.tsunami) has no article attributes: only unfiltered endpoints of that type.
    await deps.db.transaction().execute((trx) => recordEvents(trx, [{ type: 'news.tsunami', articleId: null, payload: { type: 'news.tsunami', id: 424242, headline: 'wire' } }]));
    await settled(Object.values(eps).map((e) => e.id));
    // Check window: no endpoint gets a delivery its filters leave out.
    await quietFor(150);
    const got = (p: string) => rx.byPath(p).map((q) => JSON.parse(q.body) as { type: string; data: { id: number } });
    const ids = (p: string) => got(p).map((b) => (b.type === 'news.tsunami' ? 'wire' : b.data.id));
    expect(ids(paths.eth)).toEqual([a1]);
    expect(ids(paths.btcDefi)).toEqual([a2]);
    expect(ids(paths.addr)).toEqual([a4]);
    expect(ids(paths.all).sort()).toEqual([a1, a2, a3, a4, 'wire'].sort());
    expect(rx.byPath(paths.nft)).toEqual([]);
    expect(rx.byPath(paths.sponsoredOnly)).toEqual([]);
    for (const e of [eps.nft, eps.sponsoredOnly]) expect(await deliveriesOf(e.id)).toEqual([]);
    for (const [k, p] of Object.entries(paths))
      for (const q of rx.byPath(p)) expect(() => new Webhook(eps[k as keyof typeof eps].secret).verify(q.body, headersOf(q))).not.toThrow();
    for (const e of Object.values(eps)) await http.delete(`/api/v1/webhooks/${e.id}/`, undefined, owner.bearer);
  });

  it('a failing receiver: retried with backoff and the same webhook-id, every signature valid, only a short excerpt kept; failing_since shown, then cleared', async () => {
    const path = freshPath('flaky');
    let calls = 0;
    answers.set(path, () => (++calls <= 2 ? { status: 500, body: 'x'.repeat(10_000) } : { status: 204 }));
    const ep = await endpoint(path);
    await approveArticle(deps, editor.userId, { tags: ['retry'] });
    await until('first failure recorded', async () => (await deliveriesOf(ep.id))[0]?.last_status === 500);
    const failing = await http.get(`/api/v1/webhooks/${ep.id}/`, owner.bearer);
    expect(failing.body.failing_since).not.toBeNull();
    const pending = (await deliveriesOf(ep.id))[0];
    expect(pending.state).toBe('pending');
    expect(pending.last_response_excerpt!.length).toBeLessThanOrEqual(256);
    await settled([ep.id]);
    const qs = rx.byPath(path);
    expect(qs).toHaveLength(3);
    expect(new Set(qs.map((q) => q.headers['webhook-id'])).size).toBe(1);
    expect(new Set(qs.map((q) => q.body)).size).toBe(1);
    for (const q of qs) expect(() => new Webhook(ep.secret).verify(q.body, headersOf(q))).not.toThrow();
    // Backoff: ~base, then ~4 x base (with +-20% jitter and the sweep's granularity).
    const gaps = [qs[1].at - qs[0].at, qs[2].at - qs[1].at];
    expect(gaps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 0.8 - 20);
    expect(gaps[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 4 * 0.8 - 20);
    const [d] = await deliveriesOf(ep.id);
    expect(d).toMatchObject({ state: 'succeeded', attempts: 3, last_status: 204, last_response_excerpt: null });
    expect((await http.get(`/api/v1/webhooks/${ep.id}/`, owner.bearer)).body.failing_since).toBeNull();
    answers.delete(path);
  });

  it('during a secret rotation deliveries carry both signatures; each secret verifies on its own', async () => {
    const path = freshPath('rotate');
    const ep = await endpoint(path);
    const rot = await http.post(`/api/v1/webhooks/${ep.id}/rotate-secret/`, undefined, owner.bearer);
    const t = await http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, owner.bearer);
    expect(t.status).toBe(202);
    const [q] = await until('delivery', () => (rx.byPath(path).length ? rx.byPath(path) : null));
    expect(q.headers['webhook-signature'].split(' ')).toHaveLength(2);
    const withNew = new Webhook(rot.body.secret).verify(q.body, headersOf(q)) as { type: string; data: { webhook_endpoint_id: number } };
    expect(withNew.type).toBe('webhook.test');
    expect(withNew.data.webhook_endpoint_id).toBe(ep.id);
    expect(() => new Webhook(ep.secret).verify(q.body, headersOf(q))).not.toThrow();
    expect(q.headers['webhook-id']).toBe(`msg_${t.body.delivery.id}`);
    // After the grace period only the new secret signs.
    await deps.db
      .updateTable('webhook_endpoints')
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', ep.id)
      .execute();
    await http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, owner.bearer);
    const second = await until('second delivery', () => rx.byPath(path)[1]);
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(rot.body.secret).verify(second.body, headersOf(second))).not.toThrow();
    expect(() => new Webhook(ep.secret).verify(second.body, headersOf(second))).toThrow();
  });

  it('410 Gone disables the endpoint at once, with the reason on its record; later events are not delivered to it', async () => {
    const path = freshPath('gone');
    answers.set(path, () => ({ status: 410, body: 'unsubscribed' }));
    const ep = await endpoint(path);
    await approveArticle(deps, editor.userId);
    const rec = await until('disabled', async () => {
      const r = await http.get(`/api/v1/webhooks/${ep.id}/`, owner.bearer);
      return r.body.enabled === false ? r.body : null;
    });
    expect(rec.disabled_reason).toMatch(/410 Gone/);
    expect(rec.disabled_at).not.toBeNull();
    const [d] = await deliveriesOf(ep.id);
    expect(d).toMatchObject({ state: 'failed', attempts: 1, last_status: 410, last_response_excerpt: 'unsubscribed' });
    await approveArticle(deps, editor.userId);
    await relayed(deps);
    // Check window: the disabled endpoint gets nothing more.
    await quietFor(300);
    expect(rx.byPath(path)).toHaveLength(1);
    expect(await deliveriesOf(ep.id)).toHaveLength(1);
    answers.delete(path);
  });

  it('a redirect is never followed: it is a failure, retried', async () => {
    const path = freshPath('redirect');
    const target = freshPath('redirect-target');
    answers.set(path, () => ({ status: 301, headers: { location: rx.url(target) } }));
    const ep = await endpoint(path);
    await http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, owner.bearer);
    await until('two attempts', () => rx.byPath(path).length >= 2);
    const [d] = await deliveriesOf(ep.id);
    expect(d).toMatchObject({ state: 'pending', last_status: 301, last_error: 'redirect_not_followed' });
    expect(rx.byPath(target)).toHaveLength(0);
    await http.request('PATCH', `/api/v1/webhooks/${ep.id}/`, { enabled: false }, owner.bearer);
    answers.delete(path);
  });

  it('hanging receivers do not delay the others: healthy endpoints are served while many hang; a hanging one sees at most the per-endpoint cap at once', async () => {
    const hanging = Array.from({ length: 12 }, () => freshPath('hang'));
    const healthy = Array.from({ length: 8 }, () => freshPath('healthy'));
    for (const p of hanging) answers.set(p, () => ({ hang: true }));
    const hangEps = await Promise.all(hanging.map((p) => endpoint(p)));
    const okEps = await Promise.all(healthy.map((p) => endpoint(p)));
    // Several events at once: every hanging endpoint gets more deliveries than its cap.
    const t0 = Date.now();
    const articles = [];
    for (let i = 0; i < 4; i++) articles.push(await approveArticle(deps, editor.userId, { tags: ['hang-test'] }));
    const committed = Date.now();
    await until('healthy endpoints have every event', () => healthy.every((p) => rx.byPath(p).length >= articles.length), TIMEOUT_MS);
    const servedMs = Date.now() - committed;
    // All healthy deliveries arrived while the hanging requests were still open (before any attempt timed out).
    expect(servedMs).toBeLessThan(TIMEOUT_MS);
    expect(hanging.some((p) => (rx.open.get(p) ?? 0) > 0)).toBe(true);
    // The cap is what limits a hanging endpoint: some endpoint reaches it and none ever exceeds it. A run
    // that found one due delivery reads again only when a slot frees, so the second request to an endpoint
    // may open only after its first attempt times out: wait for it.
    const maxOpen = () => Math.max(...hanging.map((p) => rx.maxOpen.get(p) ?? 0));
    await until('a hanging endpoint at its cap', () => maxOpen() >= PER_ENDPOINT, TIMEOUT_MS * 3);
    for (const p of hanging) expect(rx.maxOpen.get(p) ?? 0).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(maxOpen()).toBe(PER_ENDPOINT);
    // The hanging attempts end with the timeout and are scheduled for a retry.
    await until(
      'timeouts recorded',
      async () => {
        const r = await deps.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', hangEps[0].id).where('last_error', '=', 'timeout').execute();
        return r.length > 0;
      },
      TIMEOUT_MS + 5000,
    );
    console.log(`[webhooks] 12 hanging + 8 healthy endpoints, ${articles.length} events: healthy served ${servedMs} ms after the last commit (${committed - t0} ms of commits)`);
    for (const e of [...hangEps, ...okEps]) await http.request('PATCH', `/api/v1/webhooks/${e.id}/`, { enabled: false }, owner.bearer);
    for (const p of hanging) answers.delete(p);
  });

  it('redeliver sends a finished delivery again with the same webhook-id', async () => {
    const path = freshPath('redeliver');
    const ep = await endpoint(path);
    const t = await http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, owner.bearer);
    await settled([ep.id]);
    const r = await http.post(`/api/v1/webhooks/${ep.id}/deliveries/${t.body.delivery.id}/redeliver/`, undefined, owner.bearer);
    expect(r.status).toBe(202);
    await until('second arrival', () => rx.byPath(path).length === 2);
    const [a, b] = rx.byPath(path);
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(b.body).toBe(a.body);
    expect(() => new Webhook(ep.secret).verify(b.body, headersOf(b))).not.toThrow();
    await settled([ep.id]);
    expect((await deliveriesOf(ep.id))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('failing for longer than the retry horizon disables the endpoint, with the reason; retries used up mean failed', async () => {
    const path = freshPath('dead');
    answers.set(path, () => ({ status: 503 }));
    const ep = await endpoint(path);
    // Its failures began longer ago than the horizon (and one delivery has used all but one attempt).
    await deps.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(Date.now() - retryHorizonMs(RETRY_BASE_MS) - 60_000) })
      .where('id', '=', ep.id)
      .execute();
    await sql`INSERT INTO webhook_deliveries (endpoint_id, event_type, payload, attempts, next_attempt_at) VALUES (${ep.id}, 'webhook.test', '{}', 9, now())`.execute(deps.db);
    const rec = await until('disabled', async () => {
      const r = await http.get(`/api/v1/webhooks/${ep.id}/`, owner.bearer);
      return r.body.enabled === false ? r.body : null;
    });
    expect(rec.disabled_reason).toMatch(/retry horizon/);
    const [d] = await deliveriesOf(ep.id);
    expect(d).toMatchObject({ state: 'failed', attempts: 10, last_status: 503 });
    answers.delete(path);
  });

  it('a delivery whose wake-up was lost is found by the sweep', async () => {
    const path = freshPath('lost');
    const ep = await endpoint(path);
    // Inserted as the relay would, but nobody enqueues its run.
    await insertTestDelivery(deps.db, ep.id, '{"lost":true}');
    const [q] = await until('swept delivery', () => (rx.byPath(path).length ? rx.byPath(path) : null), 5000);
    expect((new Webhook(ep.secret).verify(q.body, headersOf(q)) as { data: unknown }).data).toEqual({ lost: true });
  });
});
