/**
 * Two web processes (as two dynos: each its own empty local directory) on one database: a picture
 * uploaded through either is served by both, and survives a restart of the process that took it.
 * They run the test run's JavaScript copy of the sources (`prebuilt`, scripts/lib/prebuilt-js.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { sessionFor } from '../support/auth.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { killAll, startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';

let env: TestEnv;
let db: Db;
const dirs: string[] = [];
const procs: Proc[] = [];
const webs: { url: string; env: Record<string, string>; proc: Proc }[] = [];

function startWeb(i: number) {
  const proc = startProcfileType('web', webs[i].env, { prebuilt: true });
  procs.push(proc);
  webs[i].proc = proc;
  return waitForHttp(`${webs[i].url}/readyz`, [proc], 120_000);
}

beforeAll(async () => {
  env = await createTestEnv();
  db = createDb(env.databaseUrl, { max: 2 });
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), `squid-dyno${i}-`));
    dirs.push(dir);
    const url = `http://127.0.0.1:${port}`;
    webs.push({ url, env: { ...env.env, PORT: String(port), TRUSTED_ORIGIN: url, PROFILE_PICTURES_DIR: dir }, proc: undefined as never });
  }
  await Promise.all([startWeb(0), startWeb(1)]);
}, 150_000);

afterAll(async () => {
  await killAll(procs);
  await db?.destroy();
  await env?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function upload(web: string, bearer: Record<string, string>, color: string) {
  const bytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: color } })
    .png()
    .toBuffer();
  const f = new FormData();
  f.append('profile_picture', new Blob([bytes], { type: 'image/png' }), 'me.png');
  const r = await fetch(`${web}/api/v1/wallet/profile/`, { method: 'PUT', body: f, headers: bearer });
  expect(r.status).toBe(200);
  return new URL(((await r.json()) as { profile_picture: string }).profile_picture).pathname;
}

describe('profile pictures across web processes', () => {
  it('a picture uploaded through either process is served by both, identically, and survives a restart', async () => {
    const alice = await sessionFor(db, env.config.JWT_SECRET);
    const bob = await sessionFor(db, env.config.JWT_SECRET);
    const viaA = await upload(webs[0].url, alice.bearer, '#ff0000');
    const viaB = await upload(webs[1].url, bob.bearer, '#0000ff');
    expect(viaA).not.toBe(viaB);
    const bodies: Record<string, string[]> = { [viaA]: [], [viaB]: [] };
    for (const pic of [viaA, viaB]) {
      for (const w of webs) {
        const r = await fetch(w.url + pic);
        expect(r.status, `${w.url}${pic}`).toBe(200);
        expect(r.headers.get('content-type')).toBe('image/png');
        expect(r.headers.get('etag')).toBe(`"${path.basename(pic).slice(0, 64)}"`);
        bodies[pic].push(Buffer.from(await r.arrayBuffer()).toString('base64'));
        // Either process answers the other's ETag with 304.
        const cond = await fetch(w.url + pic, { headers: { 'if-none-match': r.headers.get('etag')! } });
        expect(cond.status).toBe(304);
      }
      expect(new Set(bodies[pic]).size).toBe(1);
    }
    // Nothing was written to either process's local disk.
    for (const d of dirs) expect(readdirSync(d)).toEqual([]);

    // A deploy restarts the process that took the upload: the picture is still there.
    await webs[0].proc.stop('SIGTERM');
    await startWeb(0);
    const after = await fetch(webs[0].url + viaA);
    expect(after.status).toBe(200);
    expect(Buffer.from(await after.arrayBuffer()).toString('base64')).toBe(bodies[viaA][0]);

    // A new picture through the second process is served by the first at once.
    const replaced = await upload(webs[1].url, alice.bearer, '#00ff00');
    expect(replaced).not.toBe(viaA);
    expect((await fetch(webs[0].url + replaced)).status).toBe(200);
  }, 180_000);
});
