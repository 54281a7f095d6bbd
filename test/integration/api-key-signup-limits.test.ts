/**
 * API-key sign-up is metered: API_KEY_SIGNUPS_PER_HOUR per client address, and per account when
 * signed in (from any address); and the free keys nobody holds or used are deleted after
 * API_KEY_UNUSED_DAYS by api-keys-prune.
 */
import { describe, expect, it } from 'vitest';
import { job as apiKeysPrune } from '../../jobs/api-keys-prune.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp(undefined, { API_KEY_SIGNUPS_PER_HOUR: '2', TRUST_PROXY: 'true' });

const signup = (from: string, headers: Record<string, string> = {}) =>
  app.http.post('/api-key/signup/', new URLSearchParams({ name: 'metered' }).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
    'x-forwarded-for': from,
    ...headers,
  });

describe('sign-up limits', () => {
  it('one address gets API_KEY_SIGNUPS_PER_HOUR keys an hour, then 429 rate_limited with Retry-After; another address is not affected', async () => {
    expect((await signup('203.0.113.1')).status).toBe(201);
    expect((await signup('203.0.113.1')).status).toBe(201);
    const third = await signup('203.0.113.1');
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signup('203.0.113.2')).status).toBe(201);
  });

  it('a signed-in account gets API_KEY_SIGNUPS_PER_HOUR keys an hour from any address', async () => {
    const user = await app.session();
    const cookie = user.cookie(app.deps.config.TRUSTED_ORIGIN);
    expect((await signup('198.51.100.1', cookie)).status).toBe(201);
    expect((await signup('198.51.100.2', cookie)).status).toBe(201);
    const third = await signup('198.51.100.3', cookie);
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(third.body.error.message).toContain('this account signed up for 2 API keys in the last hour');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(3500);
    const held = await app.deps.db.selectFrom('api_keys').select('id').where('user_id', '=', user.userId).execute();
    expect(held).toHaveLength(2);
  });
});

describe('api-keys-prune', () => {
  it('deletes free keys that nobody holds and nobody used once API_KEY_UNUSED_DAYS have passed, and nothing else', async () => {
    const owner = await app.session();
    const old = new Date(Date.now() - (app.deps.config.API_KEY_UNUSED_DAYS + 1) * 86400_000);
    const base = { key_first4: 'sq_a', key_last4: 'zzzz', name: 'prune' };
    const rows = [
      { id: 'k_prune_unused_old', created_at: old },
      { id: 'k_prune_unused_new', created_at: new Date() },
      { id: 'k_prune_used_old', created_at: old, last_used_at: new Date() },
      { id: 'k_prune_held_old', created_at: old, user_id: owner.userId },
      { id: 'k_prune_builder_old', created_at: old, tier: 'builder' as const },
    ];
    for (const r of rows)
      await app.deps.db
        .insertInto('api_keys')
        .values({ ...base, key_hash: `hash-${r.id}`, ...r })
        .execute();
    const deps2 = { config: app.deps.config, db: app.deps.db, redis: app.deps.redis, events: app.deps.events, log: app.deps.log, enqueue: app.deps.queue.enqueuer };
    await apiKeysPrune.run(apiKeysPrune.payload.parse({}), deps2, { attempt: 1, jobId: 'test' });
    const left = await app.deps.db.selectFrom('api_keys').select('id').where('id', 'like', 'k_prune_%').orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual(['k_prune_builder_old', 'k_prune_held_old', 'k_prune_unused_new', 'k_prune_used_old']);
  });
});
