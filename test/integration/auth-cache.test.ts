/**
 * API-key lookups and roles are cached briefly in each web process, and a revocation,
 * rotation or role change made anywhere (here: straight in the database, as the CLI does) stops
 * working in every web process within one second. Two real web processes (the Procfile's `web`)
 * with the production check interval (AUTH_CACHE_CHECK_MS=200).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { AuthCache } from '../../src/identity/auth-cache.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { insertApiKey, revokeApiKey, rotateApiKey } from '../../src/identity/api-key-queries.js';
import { freePort } from '../../scripts/lib/services.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
let db: Db;
const procs: Proc[] = [];
const bases: string[] = [];

beforeAll(async () => {
  env = await createTestEnv({ AUTH_CACHE_CHECK_MS: '200', LOG_LEVEL: 'warn' });
  db = createDb(env.databaseUrl, { max: 2 });
  for (const name of ['web-a', 'web-b']) {
    const port = await freePort();
    const p = startProcfileType('web', { ...env.env, PORT: String(port), HOST: '127.0.0.1' }, { prebuilt: true });
    p.name = name;
    procs.push(p);
    bases.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(bases.map((b) => waitForHttp(`${b}/healthz`, procs, 120_000)));
}, 150_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGTERM')));
  await db?.destroy();
  await env?.cleanup();
});

async function status(url: string, headers: Record<string, string>): Promise<{ status: number; code?: string }> {
  const r = await fetch(url, { headers });
  const text = await r.text();
  let code: string | undefined;
  try {
    code = JSON.parse(text).error?.code;
  } catch {
    /* not JSON */
  }
  return { status: r.status, code };
}

/** Poll every web process until `done` holds for its answer; the slowest process's time in ms. */
async function timeUntil(path: string, headers: Record<string, string>, done: (r: { status: number; code?: string }) => boolean): Promise<number> {
  const t0 = performance.now();
  const times = await Promise.all(
    bases.map((b) =>
      waitFor(async () => (done(await status(`${b}${path}`, headers)) ? { ms: performance.now() - t0 } : undefined), { timeout: 5000 }).then(
        (r) => r.ms,
        () => Infinity,
      ),
    ),
  );
  return Math.max(...times);
}

async function newUser(roles: string[]) {
  const address = '0x' + Math.random().toString(16).slice(2).padEnd(40, '0').slice(0, 40);
  const u = await db.insertInto('users').values({ wallet_address: address, roles }).returning(['id', 'wallet_address']).executeTakeFirstOrThrow();
  return u;
}

async function newKey(userId: number | null) {
  const k = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(db, { id, ...k, name: 'cache test', email: null, useCase: null, userId });
  return { id, raw: k.raw };
}

describe('auth cache across two web processes', () => {
  it('a revoked API key stops working in both processes within one second', async () => {
    const u = await newUser([]);
    const key = await newKey(u.id);
    const h = { authorization: `Bearer ${key.raw}` };
    // Warm both processes' caches: the key works, repeatedly.
    for (let i = 0; i < 3; i++) for (const b of bases) expect((await status(`${b}/api/v1/news/`, h)).status).toBe(200);
    await revokeApiKey(db, key.id);
    const ms = await timeUntil('/api/v1/news/', h, (r) => r.status === 401 && r.code === 'api_key_revoked');
    expect(ms).toBeLessThan(1000);
  });

  it('a rotated key: the old secret stops working within one second, the new one works', async () => {
    const u = await newUser([]);
    const key = await newKey(u.id);
    const old = { authorization: `Bearer ${key.raw}` };
    for (const b of bases) expect((await status(`${b}/api/v1/news/`, old)).status).toBe(200);
    const fresh = generateApiKey();
    await rotateApiKey(db, key.id, fresh);
    const ms = await timeUntil('/api/v1/news/', old, (r) => r.status === 401 && r.code === 'api_key_invalid');
    expect(ms).toBeLessThan(1000);
    for (const b of bases) expect((await status(`${b}/api/v1/news/`, { authorization: `Bearer ${fresh.raw}` })).status).toBe(200);
  });

  it('a removed role stops working within one second (session token and API key alike)', async () => {
    const staff = await newUser(['staff']);
    const token = await signAccessToken(env.config.JWT_SECRET, { userId: staff.id, address: staff.wallet_address, roles: ['staff'] });
    const key = await newKey(staff.id);
    const viaToken = { authorization: `Bearer ${token}` };
    const viaKey = { authorization: `Bearer ${key.raw}` };
    for (let i = 0; i < 3; i++) {
      for (const b of bases) {
        expect((await status(`${b}/api/v1/agent-chat/agents/`, viaToken)).status).toBe(200);
        expect((await status(`${b}/api/v1/agent-chat/agents/`, viaKey)).status).toBe(200);
      }
    }
    await db.updateTable('users').set({ roles: [] }).where('id', '=', staff.id).execute();
    const [a, b] = await Promise.all([
      timeUntil('/api/v1/agent-chat/agents/', viaToken, (r) => r.status === 403 && r.code === 'staff_required'),
      timeUntil('/api/v1/agent-chat/agents/', viaKey, (r) => r.status === 403 && r.code === 'staff_required'),
    ]);
    expect(a).toBeLessThan(1000);
    expect(b).toBeLessThan(1000);
    // Granting it back works as quickly.
    await db
      .updateTable('users')
      .set({ roles: ['staff'] })
      .where('id', '=', staff.id)
      .execute();
    expect(await timeUntil('/api/v1/agent-chat/agents/', viaToken, (r) => r.status === 200)).toBeLessThan(1000);
  });
});

describe('AuthCache', () => {
  it('serves repeated lookups without the database while the generation holds, and re-reads when it moves', async () => {
    const u = await newUser(['editor']);
    const key = await newKey(u.id);
    const { hashApiKey } = await import('../../src/identity/api-keys.js');
    const cache = new AuthCache(db, { checkMs: 60_000 });
    expect(await cache.apiKey(hashApiKey(key.raw))).toMatchObject({ id: key.id, revoked_at: null, user: { id: u.id, roles: ['editor'] } });
    expect(await cache.roles(u.id)).toEqual(['editor']);
    // Changed behind the triggers' back (the generation does not move): the cached answers stay.
    await db.transaction().execute(async (trx) => {
      await sql`ALTER TABLE users DISABLE TRIGGER users_auth_generation`.execute(trx);
      await trx.updateTable('users').set({ roles: [] }).where('id', '=', u.id).execute();
      await sql`ALTER TABLE users ENABLE TRIGGER users_auth_generation`.execute(trx);
    });
    expect(await cache.roles(u.id)).toEqual(['editor']);
    // A generation that moved (any revocation) drops every entry at the next check.
    const fresh = new AuthCache(db, { checkMs: 0 });
    expect(await fresh.roles(u.id)).toEqual([]);
    await revokeApiKey(db, key.id);
    expect((await fresh.apiKey(hashApiKey(key.raw)))?.revoked_at).toBeInstanceOf(Date);
    expect(await cache.apiKey('0'.repeat(64))).toBeUndefined();
  });
});
