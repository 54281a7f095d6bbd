import http1 from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { sessionFor } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { tinyFramesGif } from '../support/gif.js';
import { mediaCount as mediaCountIn, profileForm } from '../support/profile.js';
import request from '../support/request.js';

const UPLOADS_PER_HOUR = 3;

let deps: TestDeps;
let http: ReturnType<typeof request>;
// The same stack with a pool of one slot and no queue.
let narrow: ReturnType<typeof request>;

beforeAll(async () => {
  deps = await createTestDeps({ PROFILE_PICTURE_UPLOADS_PER_HOUR: String(UPLOADS_PER_HOUR) });
  http = request(createApp(deps));
  narrow = request(createApp({ ...deps, config: { ...deps.config, PICTURE_CONCURRENCY: 1, PICTURE_QUEUE_MAX: 0, PROFILE_PICTURE_UPLOADS_PER_HOUR: 1000 } }));
});
afterAll(async () => {
  await deps.close();
});

const form = (bytes: Buffer, name: string, type: string, fields: Record<string, string> = {}) => profileForm(fields, [{ name, type, bytes }]);
const mediaCount = () => mediaCountIn(deps.db);

describe('PUT /wallet/profile/ picture caps', () => {
  it('refuses a GIF over the frame or pixel cap with 413 from its header, storing nothing; one within the caps is stored', async () => {
    const me = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const before = await mediaCount();
    // 40 frames of 1000x1000: 40 million pixels over all frames.
    const big = await http.put('/api/v1/wallet/profile/', form(tinyFramesGif(1000, 1000, 40), 'big.gif', 'image/gif', { bio: 'not saved' }), me.bearer);
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('profile_picture_too_many_pixels');
    expect(big.body.error.details).toEqual({ width: 1000, height: 1000, frames: 40 });
    // 51 frames, however small.
    const long = await http.put('/api/v1/wallet/profile/', form(tinyFramesGif(10, 10, 51), 'long.gif', 'image/gif'), me.bearer);
    expect(long.status).toBe(413);
    expect(long.body.error.code).toBe('profile_picture_too_many_pixels');
    expect(long.body.error.message).toMatch(/50 frames/);
    expect(await mediaCount()).toBe(before);
    expect((await http.get('/api/v1/wallet/me/', me.bearer)).body).toMatchObject({ bio: null, profile_picture: null });
    // 50 frames of 400x400 (8 million pixels) is within both caps.
    const ok = await http.put('/api/v1/wallet/profile/', form(tinyFramesGif(400, 400, 50), 'ok.gif', 'image/gif'), me.bearer);
    expect(ok.status).toBe(200);
    expect(ok.body.profile_picture).toMatch(/\.gif$/);
  });
});

describe('PUT /wallet/profile/ upload limit per account', () => {
  it('answers 429 rate_limited past the hourly uploads of one account; edits without a file and other accounts go on', async () => {
    const me = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const gif = tinyFramesGif(8, 8, 2);
    for (let i = 0; i < UPLOADS_PER_HOUR; i++) {
      const r = await http.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif'), me.bearer);
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-limit')).toBe(String(UPLOADS_PER_HOUR));
    }
    const refused = await http.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif', { bio: 'not saved' }), me.bearer);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.details).toMatchObject({ limit: UPLOADS_PER_HOUR, window_seconds: 3600 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await http.get('/api/v1/wallet/me/', me.bearer)).body.bio).toBeNull();
    // Edits without a picture are not uploads.
    expect((await http.put('/api/v1/wallet/profile/', { bio: 'still editable' }, me.bearer)).status).toBe(200);
    expect((await http.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif'), other.bearer)).status).toBe(200);
  });
});

/** Sends the head and the first part of a multipart body, then waits: the status answered before the rest is sent, or null by `ms`. */
function statusBeforeBodyEnds(base: string, bearer: Record<string, string>, ms: number): Promise<number | null> {
  const url = new URL('/api/v1/wallet/profile/', base);
  return new Promise((resolve) => {
    const req = http1.request(url, {
      method: 'PUT',
      headers: { ...bearer, 'content-type': 'multipart/form-data; boundary=xyz', 'content-length': String(200_000) },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve(null);
    }, ms);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode ?? null);
    });
    req.on('error', () => undefined);
    req.write('--xyz\r\ncontent-disposition: form-data; name="profile_picture"; filename="a.gif"\r\ncontent-type: image/gif\r\n\r\nGIF89a');
  });
}

describe('PUT /wallet/profile/ refusals before the body is read', () => {
  it('an account with no upload left gets its 429 before sending the body', async () => {
    const me = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const gif = tinyFramesGif(8, 8, 2);
    for (let i = 0; i < UPLOADS_PER_HOUR; i++) expect((await http.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif'), me.bearer)).status).toBe(200);
    expect(await statusBeforeBodyEnds(await http.base, me.bearer, 5000)).toBe(429);
    // An account with uploads left is read as before (nothing answered until the body ends).
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    expect(await statusBeforeBodyEnds(await http.base, other.bearer, 1000)).toBeNull();
  });
});

describe('PUT /wallet/profile/ picture pool', () => {
  it('a full pool answers 503 profile_picture_busy with Retry-After at once, storing nothing for the refused uploads', async () => {
    // About a second of decoding and re-encoding each: 36 million pixels (under the still-picture cap).
    const heavy = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#3a6' } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const users = await Promise.all(Array.from({ length: 4 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    const answers = await Promise.all(users.map((u) => narrow.put('/api/v1/wallet/profile/', form(heavy, 'h.png', 'image/png', { bio: 'with picture' }), u.bearer)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const busy = answers.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const r of busy) {
      expect(r.body.error.code).toBe('profile_picture_busy');
      expect(r.headers.get('retry-after')).toBe('5');
    }
    for (const [i, r] of answers.entries()) {
      const mine = (await narrow.get('/api/v1/wallet/me/', users[i].bearer)).body;
      if (r.status === 503) expect(mine).toMatchObject({ bio: null, profile_picture: null });
      else expect(mine.profile_picture).toMatch(/\.png$/);
    }
    // Once the pool is free, the same upload goes through.
    const again = await narrow.put('/api/v1/wallet/profile/', form(heavy, 'h.png', 'image/png'), users[answers.findIndex((r) => r.status === 503)].bearer);
    expect(again.status).toBe(200);
  });
});

describe('PUT /wallet/profile/ picture pool, before the body is read', () => {
  it('a body that must carry a file is refused 503 before it is read while every slot is taken', async () => {
    const heavy = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#a36' } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const [first, second] = await Promise.all([sessionFor(deps.db, deps.config.JWT_SECRET), sessionFor(deps.db, deps.config.JWT_SECRET)]);
    // The slot is taken while the upload is re-encoded (a few hundred milliseconds here). A probe
    // starts every 20 ms while the upload runs, each waiting up to 150 ms for an answer, so that
    // one lands inside that window however short it is on this machine; the upload runs again (at
    // most three times) until one does.
    const seen: (number | null)[] = [];
    for (let attempt = 0; attempt < 3 && !seen.includes(503); attempt++) {
      let done = false;
      const running = narrow.put('/api/v1/wallet/profile/', form(heavy, 'h.png', 'image/png'), first.bearer).finally(() => (done = true));
      const probes: Promise<void>[] = [];
      while (!done && !seen.includes(503)) {
        probes.push(statusBeforeBodyEnds(await narrow.base, second.bearer, 150).then((s) => void seen.push(s)));
        await new Promise((r) => setTimeout(r, 20));
      }
      await Promise.all(probes);
      expect((await running).status).toBe(200);
    }
    const tally = seen.reduce<Record<string, number>>((t, s) => ({ ...t, [String(s)]: (t[String(s)] ?? 0) + 1 }), {});
    expect(seen, `probe answers: ${JSON.stringify(tally)}`).toContain(503);
    // Free again: the body is read as before.
    expect(await statusBeforeBodyEnds(await narrow.base, second.bearer, 500)).toBeNull();
  });
});

describe('PUT /wallet/profile/ upload limit per client address', () => {
  const PER_ADDRESS = 2;
  let own: TestDeps;
  let app: ReturnType<typeof request>;
  beforeAll(async () => {
    own = await createTestDeps({ PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR: String(PER_ADDRESS) });
    app = request(createApp(own));
  });
  afterAll(async () => {
    await own.close();
  });

  it('counts uploads of every account behind one address; once spent, any multipart edit from it is refused before its body is read', async () => {
    const users = await Promise.all(Array.from({ length: PER_ADDRESS + 1 }, () => sessionFor(own.db, own.config.JWT_SECRET)));
    const gif = tinyFramesGif(8, 8, 2);
    for (const u of users.slice(0, PER_ADDRESS)) expect((await app.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif'), u.bearer)).status).toBe(200);
    const last = users[PER_ADDRESS];
    const refused = await app.put('/api/v1/wallet/profile/', form(gif, 'a.gif', 'image/gif', { bio: 'not saved' }), last.bearer);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.details).toMatchObject({ limit: PER_ADDRESS, window_seconds: 3600 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await app.get('/api/v1/wallet/me/', last.bearer)).body).toMatchObject({ bio: null, profile_picture: null });
    expect(await statusBeforeBodyEnds(await app.base, last.bearer, 5000)).toBe(429);
    // JSON edits are not uploads.
    expect((await app.put('/api/v1/wallet/profile/', { bio: 'still editable' }, last.bearer)).status).toBe(200);
  });
});
