/**
 * GET /metrics on the web process: token-protected Prometheus text with HTTP rates and latencies by
 * route pattern, job counts/durations/failures recorded by real workers through Redis, queue depths
 * and the event stream.
 */
import type { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startTestWorkers } from '../support/workers.js';
import { createTestDeps } from '../support/context.js';
import request from '../support/request.js';
import { useTestApp } from '../support/app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const app = useTestApp({ user: {} }, { METRICS_TOKEN: TOKEN });
let workers: Worker[] = [];

const scrape = () => app.http.get('/metrics', { authorization: `Bearer ${TOKEN}` });

/** The value of one sample line, e.g. sample(text, 'squid_jobs_completed_total{job="ping"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

describe('metrics endpoint', () => {
  it('is disabled (404) when METRICS_TOKEN is unset', async () => {
    const other = await createTestDeps();
    const h = request(createApp(other));
    try {
      const r = await h.get('/metrics', { authorization: `Bearer ${TOKEN}` });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    } finally {
      await h.close();
      await other.close();
    }
  });

  it('needs the bearer token: none or a wrong one is 401, and the token never appears in a response', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: TOKEN }, { cookie: `access_token=${TOKEN}` }];
    for (const headers of variants) {
      const r = await app.http.get('/metrics', headers);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('metrics_token_invalid');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(r.text).not.toContain(TOKEN);
    }
    expect((await app.http.post('/metrics', {}, { authorization: `Bearer ${TOKEN}` })).status).toBe(405);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).not.toContain(TOKEN);
  });

  it('counts HTTP requests by route pattern, never by raw path', async () => {
    for (const id of [101, 202, 303]) await app.http.get(`/api/v1/news/${id}/`);
    await app.http.get('/api/v1/news/check?url=https://example.com/a');
    await app.http.get('/no/such/path/7f3a');
    await app.http.request('PROPFIND', '/api/v1/news/');
    const text = (await scrape()).text;
    expect(sample(text, 'squid_http_requests_total{method="GET",route="/api/v1/news/:id/",status="404"}')).toBe(3);
    expect(sample(text, 'squid_http_requests_total{method="GET",route="/api/v1/news/check",status="200"}')).toBe(1);
    expect(sample(text, 'squid_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/squid_http_requests_total\{method="OTHER",route="unmatched",status="\d+"\}/);
    expect(text).toMatch(/squid_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/news\/:id\/",status="404"\}/);
    // The latency histogram of that series: cumulative buckets, +Inf equal to the count.
    const series = 'method="GET",route="/api/v1/news/:id/",status="404"';
    const buckets = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf'].map((le) =>
      sample(text, `squid_http_request_duration_seconds_bucket{le="${le}",${series}}`)!,
    );
    expect(buckets.every((b, i) => i === 0 || b >= buckets[i - 1])).toBe(true);
    expect(buckets.at(-1)).toBe(3);
    expect(sample(text, `squid_http_request_duration_seconds_count{${series}}`)).toBe(3);
    expect(sample(text, `squid_http_request_duration_seconds_sum{${series}}`)).toBeGreaterThan(0);
    expect(sample(text, 'squid_http_requests_in_flight')).toBe(1); // the scrape itself
    expect(text).toContain('# TYPE squid_http_request_duration_seconds histogram');
    expect(text).not.toContain('/api/v1/news/101/');
    expect(text).not.toContain('7f3a');
    // prom-client's default process metrics (memory of this process).
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('exports job counts, durations and failures recorded by the workers, and queue depths', async () => {
    const before = (await scrape()).text;
    expect(sample(before, 'squid_jobs_completed_total{job="ping"}')).toBe(0);
    // Queued before any worker runs: a depth of 3 waiting.
    for (let i = 0; i < 3; i++) await app.deps.queue.enqueue('ping', { token: `m${i}`, sleep_ms: 20 });
    await app.deps.queue.queue('ping').add('ping', { token: 42 }, { attempts: 3 }); // bad payload: fails for good
    const queued = (await scrape()).text;
    expect(sample(queued, 'squid_queue_jobs{queue="ping",state="waiting"}')).toBe(4);
    expect(sample(queued, 'squid_queue_jobs{queue="page-title",state="waiting"}')).toBe(0);

    workers = startTestWorkers(app.deps, ['ping'], { concurrencyCap: 4 });
    const r = await app.deps.queue.enqueueAndWait('ping', { token: 'flaky', fail_first_attempts: 1 }, 10_000);
    expect(r.state).toBe('completed');
    await expect.poll(async () => sample((await scrape()).text, 'squid_jobs_completed_total{job="ping"}'), { timeout: 10_000 }).toBe(4);
    const text = (await scrape()).text;
    expect(sample(text, 'squid_jobs_failed_total{job="ping",final="true"}')).toBe(1);
    expect(sample(text, 'squid_jobs_failed_total{job="ping",final="false"}')).toBe(1);
    expect(sample(text, 'squid_job_duration_seconds_count{job="ping"}')).toBe(6);
    expect(sample(text, 'squid_job_duration_seconds_bucket{job="ping",le="+Inf"}')).toBe(6);
    expect(sample(text, 'squid_job_duration_seconds_bucket{job="ping",le="0.01"}')).toBeLessThan(6); // three slept 20 ms
    expect(sample(text, 'squid_job_duration_seconds_sum{job="ping"}')).toBeGreaterThanOrEqual(0.06);
    expect(sample(text, 'squid_queue_jobs{queue="ping",state="waiting"}')).toBe(0);
    expect(sample(text, 'squid_queue_jobs{queue="ping",state="failed"}')).toBe(1);
    expect(sample(text, 'squid_metrics_redis_up')).toBe(1);
  });

  it('exports the event stream length and the age of its newest event', async () => {
    const before = (await scrape()).text;
    expect(sample(before, 'squid_event_stream_length')).toBe(0);
    expect(before).not.toMatch(/^squid_event_stream_last_event_age_seconds /m);
    await app.deps.events.publish({
      type: 'news.approved',
      id: 1,
      slug: 'a',
      status: 'approved',
      headline: 'A',
      date_posted: new Date().toISOString(),
      origin: 'manual',
      sponsored: null,
    });
    const after = (await scrape()).text;
    expect(sample(after, 'squid_event_stream_length')).toBe(1);
    expect(sample(after, 'squid_event_stream_last_event_age_seconds')).toBeLessThan(5);
  });

  it("exports the relay's backlog: events committed to the log and not yet on the stream", async () => {
    const before = (await scrape()).text;
    const pending0 = sample(before, 'squid_event_outbox_pending')!;
    // A submission records news.submitted in its transaction; no relay runs in this file, so it waits.
    const r = await app.http.post('/api/v1/news/post', { url: `https://metrics.example/outbox-${Date.now()}`, headline: 'Outbox gauge' }, app.user.bearer);
    expect(r.status).toBe(201);
    const after = (await scrape()).text;
    expect(sample(after, 'squid_event_outbox_pending')).toBe(pending0 + 1);
    expect(sample(after, 'squid_event_outbox_oldest_age_seconds')).toBeLessThan(60);
  });
});
