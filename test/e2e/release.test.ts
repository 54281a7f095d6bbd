/**
 * The release phase (Procfile `release`) as the platform runs it: two releases at once never both
 * migrate (advisory lock), and a failing migration applies nothing, exits non-zero and leaves the
 * previous release serving on the unchanged schema. The media migration moves pictures still on disk.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import sharp from 'sharp';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations/index.js';
import { freePort } from '../../scripts/lib/services.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { RELEASE_LOCK_KEY } from '../../src/platform/migrate.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { killAll, startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';

const BEFORE = '20261124T130000_event_log_commit_order';
const names = Object.keys(migrations);
const pendingAfterRollback = names.slice(names.indexOf(BEFORE) + 1);

let env: TestEnv;
let db: Db;
const procs: Proc[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  db = createDb(env.databaseUrl, { max: 2 });
});
afterAll(async () => {
  await killAll(procs);
  await db?.destroy();
  await env?.cleanup();
});

/** Put the database back where the previous release left it: the last migrations not applied. */
async function rollBack() {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(BEFORE);
  if (error) throw error;
  expect(await applied()).toEqual(names.slice(0, names.indexOf(BEFORE) + 1));
}

async function applied(): Promise<string[]> {
  const r = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
  return r.rows.map((x) => x.name);
}

async function tableExists(name: string): Promise<boolean> {
  const r = await sql<{ t: string | null }>`SELECT to_regclass(${name})::text AS t`.execute(db);
  return r.rows[0].t !== null;
}

function release(): Proc {
  const p = startProcfileType('release', env.env);
  procs.push(p);
  return p;
}

describe('release phase', () => {
  it('two releases started while a third holds the lock: they wait, then exactly one migrates', async () => {
    await rollBack();
    // A release already migrating, as far as the lock goes.
    const holder = new pg.Client({ connectionString: env.databaseUrl });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [RELEASE_LOCK_KEY.toString()]);
    const a = release();
    const b = release();
    await Promise.all([a.waitForOutput(/waiting/, 120_000), b.waitForOutput(/waiting/, 120_000)]);
    // Neither migrated while the lock was held.
    expect(await applied()).not.toContain(pendingAfterRollback[0]);
    await holder.query('SELECT pg_advisory_unlock($1::bigint)', [RELEASE_LOCK_KEY.toString()]);
    await holder.end();
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect([ea.code, eb.code]).toEqual([0, 0]);
    const outputs = [a.output(), b.output()];
    const migrated = outputs.filter((o) => o.includes(`${pendingAfterRollback.length} migration(s) applied`));
    const upToDate = outputs.filter((o) => o.includes('database is up to date'));
    expect([migrated.length, upToDate.length], outputs.join('\n---\n')).toEqual([1, 1]);
    for (const n of pendingAfterRollback) expect(migrated[0]).toContain(`applied: ${n}`);
    // Each migration recorded once, every table there.
    expect(await applied()).toEqual(names);
    expect(await tableExists('media')).toBe(true);
  }, 240_000);

  it('a failing migration applies nothing of its batch, exits 1, and the previous release keeps serving', async () => {
    await rollBack();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const web = startProcfileType('web', { ...env.env, PORT: String(port), TRUSTED_ORIGIN: base });
    procs.push(web);
    await waitForHttp(`${base}/readyz`, [web], 120_000);
    // The web process runs this release's code on the previous release's schema, so it is probed
    // through readiness (PostgreSQL and Redis answer) rather than through pages whose queries read
    // the columns the pending migrations add.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // Something in the database the new migration does not expect: its CREATE TABLE fails.
    await sql`CREATE TABLE wire_item_tombstones (legacy integer)`.execute(db);
    const r = release();
    const exit = await r.exited;
    expect(exit.code).toBe(1);
    expect(r.output()).toMatch(/release failed, nothing applied: migration 20261125T210000_media_retention failed: .*already exists/);
    // Nothing of the batch: not even the migration before the failing one (webhooks), which had succeeded in the same transaction.
    expect(await applied()).toEqual(names.slice(0, names.indexOf(BEFORE) + 1));
    expect(await tableExists('webhook_endpoints')).toBe(false);
    expect(await tableExists('media')).toBe(false);
    // The previous release still serves, on the unchanged schema.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(web.isRunning()).toBe(true);

    // The cause fixed, the same release succeeds; it also moves a picture the previous release kept on its disk.
    await sql`DROP TABLE wire_item_tombstones`.execute(db);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-release-pics-'));
    const legacy = `${'5e'.repeat(16)}.jpg`;
    const photo = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#345' } })
      .jpeg()
      .withExif({ IFD0: { Make: 'ReleaseCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .toBuffer();
    writeFileSync(path.join(dir, legacy), photo);
    const user = await db
      .insertInto('users')
      .values({ wallet_address: '0x' + '7'.repeat(40), profile_picture: legacy })
      .returning('id')
      .executeTakeFirstOrThrow();
    const again = startProcfileType('release', { ...env.env, PROFILE_PICTURES_DIR: dir });
    procs.push(again);
    expect((await again.exited).code, again.output()).toBe(0);
    expect(again.output()).toContain(`${pendingAfterRollback.length} migration(s) applied`);
    expect(again.output()).toContain(`media: moved 1 profile picture(s) from ${dir} into PostgreSQL`);
    expect(await applied()).toEqual(names);
    const moved = await db.selectFrom('users').select('profile_picture').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(moved.profile_picture).toMatch(/^[0-9a-f]{64}\.jpg$/);
    const served = await fetch(`${base}/media/profile-pictures/${moved.profile_picture}`);
    expect(served.status).toBe(200);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.includes('ReleaseCam')).toBe(false);
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  }, 240_000);
});
