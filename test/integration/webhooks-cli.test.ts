/**
 * The operator's side of webhooks: `npm run cli -- webhooks ...`, the example receiver of the
 * README's walk-through (scripts/webhook-receiver.ts, run as a process) and delivery retention.
 */
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { job as pruneJob } from '../../jobs/webhook-prune.js';
import { nodeArgs, repoRoot } from '../../scripts/lib/procfile.js';
import { freePort } from '../../scripts/lib/services.js';
import { insertEndpoint, insertTestDelivery, rearmDelivery } from '../../src/webhooks/queries.js';
import { deliverEndpoint } from '../../src/webhooks/deliver.js';
import { DEV_WEBHOOK_KEY, encryptSecret, generateSecret } from '../../src/webhooks/secrets.js';
import { sessionFor } from '../support/auth.js';
import { runCliCaptured } from '../support/cli.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { waitFor as pollFor } from '../support/wait.js';

let deps: TestDeps;
let endpointId: number;
let deliveryIds: number[];

beforeAll(async () => {
  deps = await createTestDeps();
  const user = await sessionFor(deps.db, deps.config.JWT_SECRET);
  const r = await insertEndpoint(
    deps.db,
    { kind: 'user', userId: user.userId },
    {
      url: 'https://hooks.example/cli',
      description: null,
      eventTypes: ['news.approved'],
      filters: { tags: ['defi'], token_addresses: null, token_symbols: ['ETH'] },
      secretEnc: encryptSecret(DEV_WEBHOOK_KEY, generateSecret()),
    },
    10,
  );
  if (!r.ok) throw new Error('cap');
  endpointId = r.row.id;
  deliveryIds = [];
  for (let i = 0; i < 3; i++) deliveryIds.push((await insertTestDelivery(deps.db, endpointId, `{"i":${i}}`)).id);
  await sql`UPDATE webhook_deliveries SET state = 'failed', attempts = 10, last_status = 500, last_latency_ms = 12, next_attempt_at = NULL, completed_at = now() WHERE id = ${deliveryIds[0]}`.execute(
    deps.db,
  );
  await sql`UPDATE webhook_deliveries SET state = 'succeeded', attempts = 1, last_status = 200, next_attempt_at = NULL, completed_at = now() WHERE id = ${deliveryIds[1]}`.execute(
    deps.db,
  );
});
afterAll(async () => {
  await deps.close();
});

const cli = (...argv: string[]) => runCliCaptured(deps.env.env, argv);

describe('admin CLI: webhooks', () => {
  it('list shows every endpoint with its owner, filters and pending count', async () => {
    const r = await cli('webhooks', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^${endpointId}\\s+user:\\d+\\s+https://hooks.example/cli\\s+enabled\\s+approved\\s+tags=defi symbols=ETH\\s+1\\s`, 'm'));
  });

  it('deliveries lists newest first, filters by state, and refuses bad arguments', async () => {
    const r = await cli('webhooks', 'deliveries', String(endpointId));
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^id\s+webhook-id\s+event\s+type\s+state/);
    expect(lines.slice(1).map((l) => Number(l.split(/\s+/)[0]))).toEqual([...deliveryIds].reverse());
    expect(r.out).toContain(`msg_${deliveryIds[0]}`);
    expect(lines[3]).toMatch(/failed\s+10\s+500\s+12ms/);
    const failed = await cli('webhooks', 'deliveries', String(endpointId), '--state=failed');
    expect(failed.out.split('\n')).toHaveLength(2);
    expect((await cli('webhooks', 'deliveries', 'x')).code).toBe(2);
    expect((await cli('webhooks', 'deliveries', String(endpointId), '--state=lost')).code).toBe(2);
    expect((await cli('webhooks', 'deliveries', String(endpointId), '--colour=red')).code).toBe(2);
    const missing = await cli('webhooks', 'deliveries', '999999');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no webhook endpoint 999999/);
  });

  it('redeliver re-arms a finished delivery (same id, so the same webhook-id) and queues its run; pending ones are refused', async () => {
    const r = await cli('webhooks', 'redeliver', String(deliveryIds[0]));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`delivery ${deliveryIds[0]} \\(msg_${deliveryIds[0]}, webhook.test\\) to endpoint ${endpointId} is pending again; a worker sends it now`));
    const row = await deps.db.selectFrom('webhook_deliveries').select(['state', 'attempts', 'completed_at']).where('id', '=', deliveryIds[0]).executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'pending', attempts: 0, completed_at: null });
    const waiting = await deps.queue.queue('webhook-deliver').getJobs(['waiting']);
    expect(waiting.map((j) => j.data)).toContainEqual({ endpoint_id: endpointId });
    const again = await cli('webhooks', 'redeliver', String(deliveryIds[0]));
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/still pending/);
    expect((await cli('webhooks', 'redeliver', '424242')).err).toMatch(/no delivery 424242/);
    expect((await cli('webhooks', 'redeliver')).code).toBe(2);
  });

  it('help lists the group', async () => {
    const r = await cli('help', 'webhooks');
    expect(r.code).toBe(0);
    expect(r.out).toContain('webhooks redeliver <delivery-id>');
  });
});

describe('example receiver (scripts/webhook-receiver.ts)', () => {
  it('verifies a delivery with standardwebhooks, prints its event, drops a repeated webhook-id and refuses a bad signature', async () => {
    const secret = generateSecret();
    const port = await freePort();
    const child = spawn(process.execPath, [...nodeArgs('scripts/webhook-receiver.ts'), '--secret', secret, '--port', String(port)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const waitFor = async (what: () => boolean, label: string) => {
      await pollFor(what, { timeout: 15_000, interval: 50 }).catch(() => undefined);
      if (!what()) throw new Error(`receiver: no ${label}; stdout ${out} stderr ${err}`);
    };
    try {
      await waitFor(() => /listening on/.test(err), 'start');
      const user = (await deps.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
      const r = await insertEndpoint(
        deps.db,
        { kind: 'user', userId: user },
        {
          url: `http://127.0.0.1:${port}/webhooks`,
          description: null,
          eventTypes: ['news.approved'],
          filters: { tags: null, token_addresses: null, token_symbols: null },
          secretEnc: encryptSecret(DEV_WEBHOOK_KEY, secret),
        },
        100,
      );
      if (!r.ok) throw new Error('cap');
      const d = await insertTestDelivery(deps.db, r.row.id, '{"webhook_endpoint_id":1,"message":"hello"}');
      const jobDeps = { config: deps.config, db: deps.db, log: deps.log, enqueue: deps.queue.enqueuer };
      expect(await deliverEndpoint(jobDeps, r.row.id)).toMatchObject({ succeeded: 1 });
      await waitFor(() => out.includes('\n'), 'printed event');
      expect(JSON.parse(out.trim())).toMatchObject({ webhook_id: `msg_${d.id}`, type: 'webhook.test', data: { message: 'hello' } });
      // The same delivery again (a redelivery keeps its webhook-id): accepted, not printed twice.
      await deps.db.updateTable('webhook_deliveries').set({ state: 'failed', next_attempt_at: null }).where('id', '=', d.id).execute();
      expect((await rearmDelivery(deps.db, r.row.id, d.id)).ok).toBe(true);
      expect(await deliverEndpoint(jobDeps, r.row.id)).toMatchObject({ succeeded: 1 });
      await waitFor(() => /duplicate msg_/.test(err), 'duplicate notice');
      expect(out.trim().split('\n')).toHaveLength(1);
      // A forged delivery is refused with 400 (so a real sender would retry it).
      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        body: '{"type":"news.approved","timestamp":"2026-01-01T00:00:00Z","data":{}}',
        headers: { 'webhook-id': 'msg_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      });
      expect(forged.status).toBe(400);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});

describe('retention', () => {
  it('webhook-prune deletes deliveries older than EVENT_LOG_RETENTION_DAYS and keeps the rest', async () => {
    const old = await sql<{ id: number }>`
      INSERT INTO webhook_deliveries (endpoint_id, event_type, payload, state, created_at) VALUES (${endpointId}, 'webhook.test', '{}', 'succeeded', now() - interval '40 days') RETURNING id`.execute(
      deps.db,
    );
    const before = await deps.db.selectFrom('webhook_deliveries').select('id').execute();
    const jobDeps = { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer };
    const r = await pruneJob.run({}, jobDeps, { attempt: 1, jobId: 'test' });
    expect(r.deleted).toBeGreaterThanOrEqual(1);
    const after = (await deps.db.selectFrom('webhook_deliveries').select('id').execute()).map((x) => Number(x.id));
    expect(after).not.toContain(Number(old.rows[0].id));
    expect(after.length).toBe(before.length - r.deleted);
  });
});
