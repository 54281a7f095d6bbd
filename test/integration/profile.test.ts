import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { importPicturesFromDisk } from '../../src/media/import-disk.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { mediaCount as mediaCountIn, profileForm } from '../support/profile.js';
import request from '../support/request.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
// A 1x1 baseline JPEG (sharp refuses corrupt ones).
let JPEG: Buffer;
const ORIGIN = 'http://127.0.0.1:8000';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let dir: string;
let me: Session;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'squid-pics-'));
  deps = await createTestDeps({ PROFILE_PICTURES_DIR: dir });
  JPEG = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .jpeg()
    .toBuffer();
  http = request(createApp(deps));
});
afterAll(async () => {
  await deps.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  me = await sessionFor(deps.db, deps.config.JWT_SECRET);
});

const put = (body: unknown, headers: Record<string, string> = me.bearer) => http.put('/api/v1/wallet/profile/', body, headers);

const form = profileForm;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const mediaCount = () => mediaCountIn(deps.db);

function fieldsOf(r: { body: any }) {
  return r.body.error.details.fields.map((f: any) => [f.path, f.code]);
}

describe('GET /wallet/me/', () => {
  it('returns every documented field and needs credentials', async () => {
    const r = await http.get('/api/v1/wallet/me/', me.bearer);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(
      [
        'account_type',
        'bio',
        'created_at',
        'display_name',
        'ethereum_address',
        'id',
        'location',
        'model_name',
        'profile_picture',
        'roles',
        'twitter_handle',
        'username',
        'website',
      ].sort(),
    );
    expect(r.body.ethereum_address.toLowerCase()).toBe(me.address);
    const anon = await http.get('/api/v1/wallet/me/');
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('auth_required');
  });
});

describe('PUT /wallet/profile/ field rules', () => {
  const encodings = [
    ['JSON', (fields: Record<string, string>) => put(fields)],
    ['multipart', (fields: Record<string, string>) => put(form(fields))],
  ] as const;

  for (const [name, send] of encodings) {
    it(`${name}: strips @ from twitter_handle, prepends https:// to a schemeless website, trims text`, async () => {
      const r = await send({ twitter_handle: '@squid_fan', website: 'example.org/me', display_name: '  Squid Fan ', bio: 'hello', location: 'Lisbon' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ twitter_handle: 'squid_fan', website: 'https://example.org/me', display_name: 'Squid Fan', bio: 'hello', location: 'Lisbon' });
      const again = await http.get('/api/v1/wallet/me/', me.bearer);
      expect(again.body.website).toBe('https://example.org/me');
      // An http URL keeps its scheme; an empty string clears a field.
      const r2 = await send({ website: 'http://example.org', bio: '' });
      expect(r2.body).toMatchObject({ website: 'http://example.org', bio: null, twitter_handle: 'squid_fan' });
    });

    it(`${name}: rejects bad values with 400 naming each field, and changes nothing`, async () => {
      const r = await send({ website: 'ftp://example.org', twitter_handle: '@has space', account_type: 'robot', bio: 'x'.repeat(1001) });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(
        fieldsOf(r)
          .map((f: string[]) => f[0])
          .sort(),
      ).toEqual(['body.account_type', 'body.bio', 'body.twitter_handle', 'body.website']);
      for (const website of ['http://', 'javascript:alert(1)', 'https://user:pw@example.org', 'exa mple.org']) {
        const w = await send({ website });
        expect(w.status, website).toBe(400);
        expect(fieldsOf(w)).toEqual([['body.website', 'custom']]);
      }
      const unknown = await send({ favourite_colour: 'blue' });
      expect(fieldsOf(unknown)).toEqual([['body.favourite_colour', 'unknown_field']]);
      const username = await send({ username: 'sneaky' });
      expect(username.body.error.details.fields[0]).toMatchObject({ path: 'body.username' });
      expect(username.body.error.details.fields[0].message).toMatch(/username\/set/);
      const profile = await http.get('/api/v1/wallet/me/', me.bearer);
      expect(profile.body).toMatchObject({ website: null, twitter_handle: null, bio: null, account_type: 'human', username: null });
    });

    it(`${name}: model_name is required for cyborgs and bots, refused for humans, cleared when switching to human`, async () => {
      const missing = await send({ account_type: 'bot' });
      expect(missing.status).toBe(400);
      expect(fieldsOf(missing)).toEqual([['body.model_name', 'required']]);
      const ok = await send({ account_type: 'cyborg', model_name: 'claude-sonnet' });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ account_type: 'cyborg', model_name: 'claude-sonnet' });
      // The stored model name satisfies a later switch to bot.
      expect((await send({ account_type: 'bot' })).body).toMatchObject({ account_type: 'bot', model_name: 'claude-sonnet' });
      // Clearing it while a bot is refused.
      expect(fieldsOf(await send({ model_name: '' }))).toEqual([['body.model_name', 'required']]);
      const human = await send({ account_type: 'human' });
      expect(human.body).toMatchObject({ account_type: 'human', model_name: null });
      const humanWithModel = await send({ model_name: 'gpt' });
      expect(humanWithModel.status).toBe(400);
      expect(fieldsOf(humanWithModel)).toEqual([['body.model_name', 'model_name_rule']]);
    });
  }

  it('JSON: profile_picture cannot be a value (file uploads are multipart only); wrong JSON types are 400', async () => {
    const r = await put({ profile_picture: 'data:image/png;base64,AAAA' });
    expect(r.status).toBe(400);
    expect(fieldsOf(r)[0][0]).toBe('body.profile_picture');
    const types = await put({ bio: 42, account_type: null });
    expect(
      fieldsOf(types)
        .map((f: string[]) => f[0])
        .sort(),
    ).toEqual(['body.account_type', 'body.bio']);
  });

  it('refuses other body types with 415, missing credentials with 401 and a cookie without Origin with 403', async () => {
    const text = await http.put('/api/v1/wallet/profile/', 'bio=hi', { ...me.bearer, 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const urlenc = await http.put('/api/v1/wallet/profile/', 'bio=hi', { ...me.bearer, 'content-type': 'application/x-www-form-urlencoded' });
    expect(urlenc.status).toBe(415);
    expect((await put({ bio: 'x' }, {})).status).toBe(401);
    const csrf = await put({ bio: 'x' }, { cookie: `access_token=${me.token}` });
    expect(csrf.status).toBe(403);
    expect(csrf.body.error.code).toBe('csrf_origin_mismatch');
    const withOrigin = await put(form({ bio: 'from the browser' }), me.cookie(ORIGIN));
    expect(withOrigin.status).toBe(200);
    expect(withOrigin.body.bio).toBe('from the browser');
  });
});

describe('profile pictures', () => {
  const served = async (pathname: string, headers: Record<string, string> = {}) => fetch((await http.base) + pathname, { headers, redirect: 'manual' });

  it('stores JPEG, PNG and GIF by content (name and declared type ignored) and serves them content-addressed from PostgreSQL', async () => {
    for (const [bytes, type, ext] of [
      [PNG, 'image/png', 'png'],
      [GIF, 'image/gif', 'gif'],
      [JPEG, 'image/jpeg', 'jpg'],
    ] as const) {
      const r = await put(form({ display_name: 'Pic' }, [{ name: 'notes.txt', type: 'text/plain', bytes }]));
      expect(r.status).toBe(200);
      expect(r.body.display_name).toBe('Pic');
      const url = new URL(r.body.profile_picture);
      const m = url.pathname.match(/^\/media\/profile-pictures\/([0-9a-f]{64})\.(png|gif|jpg)$/);
      expect(m?.[2]).toBe(ext);
      const pic = await served(url.pathname);
      expect(pic.status).toBe(200);
      expect(pic.headers.get('content-type')).toBe(type);
      expect(pic.headers.get('x-content-type-options')).toBe('nosniff');
      expect(pic.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(pic.headers.get('etag')).toBe(`"${m![1]}"`);
      const body = Buffer.from(await pic.arrayBuffer());
      // The name is the hash of the bytes served, and they decode to the uploaded picture's size.
      expect(sha256(body)).toBe(m![1]);
      const meta = await sharp(body).metadata();
      expect([meta.format === 'jpeg' ? 'jpg' : meta.format, meta.width, meta.height]).toEqual([ext, 1, 1]);
      // Conditional request: 304 without a body; a different tag gets the bytes.
      const again = await served(url.pathname, { 'if-none-match': pic.headers.get('etag')! });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(`"${m![1]}"`);
      expect((await served(url.pathname, { 'if-none-match': '"abc"' })).status).toBe(200);
    }
    // Each replacement deleted the previous picture: one media row for this user's pictures.
    expect(await mediaCount()).toBe(1);
  });

  it('strips EXIF (GPS location, camera) and applies the orientation before storing', async () => {
    const photo = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#e33' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({
        IFD0: { Make: 'SquidCam', Model: 'Secret 9000' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '38/1 42/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '9/1 8/1 0/1' },
      })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const r = await put(form({}, [{ name: 'IMG_0001.jpg', type: 'image/jpeg', bytes: photo }]));
    expect(r.status).toBe(200);
    const body = Buffer.from(await (await served(new URL(r.body.profile_picture).pathname)).arrayBuffer());
    const meta = await sharp(body).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([20, 40]);
    expect(body.includes('SquidCam')).toBe(false);
    expect(body.includes('Secret 9000')).toBe(false);
  });

  it('rejects a non-image with 415 even when named and typed as PNG, and a PNG that does not decode; storing nothing', async () => {
    const before = await mediaCount();
    const r = await put(form({ bio: 'should not be saved' }, [{ name: 'evil.png', type: 'image/png', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>') }]));
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('profile_picture_unsupported_type');
    // Other image formats are refused too (WebP by magic bytes).
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(32)]);
    expect((await put(form({}, [{ name: 'a.gif', type: 'image/gif', bytes: webp }]))).status).toBe(415);
    // An empty file with a name is not a picture either.
    expect((await put(form({}, [{ name: 'empty.png', type: 'image/png', bytes: Buffer.alloc(0) }]))).status).toBe(415);
    // PNG magic bytes followed by garbage: sniffed as PNG, refused by the decoder.
    const broken = await put(form({ bio: 'nope' }, [{ name: 'b.png', type: 'image/png', bytes: Buffer.concat([PNG.subarray(0, 33), Buffer.alloc(64, 7)]) }]));
    expect(broken.status).toBe(415);
    expect(broken.body.error.code).toBe('profile_picture_unreadable');
    expect(await mediaCount()).toBe(before);
    expect((await http.get('/api/v1/wallet/me/', me.bearer)).body).toMatchObject({ bio: null, profile_picture: null });
  });

  it('rejects a picture over 5 MB with 413, storing nothing; exactly 5 MB is accepted', async () => {
    const before = await mediaCount();
    const justOver = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length)]);
    const r = await put(form({ bio: 'big' }, [{ name: 'big.png', type: 'image/png', bytes: justOver }]));
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('profile_picture_too_large');
    const huge = Buffer.concat([PNG, Buffer.alloc(8 * 1024 * 1024)]);
    const r2 = await put(form({}, [{ name: 'huge.png', type: 'image/png', bytes: huge }]));
    expect(r2.status).toBe(413);
    expect(r2.body.error.code).toBe('profile_picture_too_large');
    expect(await mediaCount()).toBe(before);
    // Exactly 5 MB is accepted (the trailing bytes are not part of the picture and are not stored).
    const exact = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length)]);
    const ok = await put(form({}, [{ name: 'max.png', type: 'image/png', bytes: exact }]));
    expect(ok.status).toBe(200);
    const stored = Buffer.from(await (await served(new URL(ok.body.profile_picture).pathname)).arrayBuffer());
    expect(stored.length).toBeLessThan(1000);
  });

  it('refuses two files, a file under another field name, and a malformed multipart body with 400', async () => {
    const two = await put(
      form({}, [
        { name: 'a.png', type: 'image/png', bytes: PNG },
        { name: 'b.png', type: 'image/png', bytes: PNG },
      ]),
    );
    expect(two.status).toBe(400);
    expect(two.body.error.code).toBe('multipart_invalid');
    const other = await put(form({}, [{ field: 'avatar', name: 'a.png', type: 'image/png', bytes: PNG }]));
    expect(other.status).toBe(400);
    expect(fieldsOf(other)).toEqual([['body.avatar', 'unknown_field']]);
    const broken = await http.put('/api/v1/wallet/profile/', '--xyz\r\nContent-Disposition: form-data; name="bio"\r\n\r\nunterminated', {
      ...me.bearer,
      'content-type': 'multipart/form-data; boundary=xyz',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('multipart_invalid');
    // A picture that fails with an invalid text field is not stored either.
    const before = await mediaCount();
    const bad = await put(form({ website: 'ftp://nope' }, [{ name: 'a.png', type: 'image/png', bytes: PNG }]));
    expect(bad.status).toBe(400);
    expect(await mediaCount()).toBe(before);
  });

  it('a browser form with no file chosen keeps the picture; JSON null removes it and deletes the stored bytes', async () => {
    const before = await mediaCount();
    const up = await put(form({}, [{ name: 'a.gif', type: 'image/gif', bytes: GIF }]));
    const file = path.basename(up.body.profile_picture);
    const noFile = await put(form({ bio: 'kept' }, [{ name: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) }]));
    expect(noFile.status).toBe(200);
    expect(noFile.body.profile_picture).toBe(up.body.profile_picture);
    const removed = await put({ profile_picture: null });
    expect(removed.body.profile_picture).toBeNull();
    expect(await mediaCount()).toBe(before);
    // A process that never cached it answers 404 at once (MEDIA_CACHE_TTL_MS bounds a cached copy).
    const fresh = request(createApp({ ...deps, config: { ...deps.config, MEDIA_CACHE_BYTES: 0 } }));
    expect((await fresh.get(`/media/profile-pictures/${file}`)).status).toBe(404);
  });

  it('the same bytes uploaded by two users are stored once; one removing theirs leaves the other served', async () => {
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const before = await mediaCount();
    const pic = await sharp({ create: { width: 3, height: 3, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const a = await put(form({}, [{ name: 'a.png', type: 'image/png', bytes: pic }]));
    const b = await put(form({}, [{ name: 'b.png', type: 'image/png', bytes: pic }]), other.bearer);
    expect(a.body.profile_picture).toBe(b.body.profile_picture);
    expect(await mediaCount()).toBe(before + 1);
    await put({ profile_picture: null });
    expect(await mediaCount()).toBe(before + 1);
    expect((await served(new URL(b.body.profile_picture).pathname)).status).toBe(200);
    await put({ profile_picture: null }, other.bearer);
    expect(await mediaCount()).toBe(before);
  });

  it('one user removing a picture while another uploads the same bytes never leaves the uploader without it', async () => {
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    for (let i = 0; i < 15; i++) {
      const pic = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: i, g: 200, b: 30 } } })
        .png()
        .toBuffer();
      expect((await put(form({}, [{ name: 'a.png', type: 'image/png', bytes: pic }]))).status).toBe(200);
      const [removed, uploaded] = await Promise.all([put({ profile_picture: null }), put(form({}, [{ name: 'b.png', type: 'image/png', bytes: pic }]), other.bearer)]);
      expect([removed.status, uploaded.status]).toEqual([200, 200]);
      const fresh = request(createApp({ ...deps, config: { ...deps.config, MEDIA_CACHE_BYTES: 0 } }));
      expect((await fresh.get(new URL(uploaded.body.profile_picture).pathname)).status, `round ${i}`).toBe(200);
      await put({ profile_picture: null }, other.bearer);
    }
  });

  it('moves pictures of the disk era into PostgreSQL (metadata stripped); their old URLs redirect', async () => {
    const photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0a0' } })
      .jpeg()
      .withExif({ IFD0: { Make: 'OldCam' }, IFD3: { GPSLatitudeRef: 'S', GPSLatitude: '1/1 2/1 3/1' } })
      .toBuffer();
    const legacy = `${'ab'.repeat(16)}.jpg`;
    writeFileSync(path.join(dir, legacy), photo);
    const missing = `${'cd'.repeat(16)}.png`;
    await deps.db.updateTable('users').set({ profile_picture: legacy }).where('id', '=', me.userId).execute();
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    await deps.db.updateTable('users').set({ profile_picture: missing }).where('id', '=', other.userId).execute();
    const r = await deps.db.transaction().execute((trx) => importPicturesFromDisk(trx, dir));
    expect(r).toEqual({ moved: 1, missing: [missing], rejected: [] });
    const mine = (await http.get('/api/v1/wallet/me/', me.bearer)).body.profile_picture as string;
    expect(mine).toMatch(/\/media\/profile-pictures\/[0-9a-f]{64}\.jpg$/);
    const redirect = await served(`/media/profile-pictures/${legacy}`);
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe(new URL(mine).pathname);
    const body = Buffer.from(await (await served(new URL(mine).pathname)).arrayBuffer());
    expect((await sharp(body).metadata()).exif).toBeUndefined();
    expect(body.includes('OldCam')).toBe(false);
    // Idempotent: nothing left to move.
    expect(await deps.db.transaction().execute((trx) => importPicturesFromDisk(trx, dir))).toEqual({ moved: 0, missing: [missing], rejected: [] });
  });

  it('serves only stored names: unknown or crafted names are 404', async () => {
    for (const p of [
      '/media/profile-pictures/' + 'a'.repeat(32) + '.png',
      '/media/profile-pictures/' + 'a'.repeat(64) + '.png',
      '/media/profile-pictures/..%2F..%2Fetc%2Fpasswd',
      '/media/profile-pictures/x.svg',
    ]) {
      const r = await http.get(p);
      expect(r.status, p).toBe(404);
      expect(r.body.error.code).toMatch(/not_found/);
    }
    // A stored hash under the wrong extension is not served either.
    const up = await put(form({}, [{ name: 'a.png', type: 'image/png', bytes: PNG }]));
    const wrongExt = new URL(up.body.profile_picture).pathname.replace(/\.png$/, '.gif');
    expect((await http.get(wrongExt)).status).toBe(404);
    expect((await served(wrongExt, { 'if-none-match': `"${path.basename(wrongExt).slice(0, 64)}"` })).status).toBe(404);
  });
});

describe('usernames and public profiles', () => {
  it('sets a username matching the pattern; uniqueness ignores case (409); own name may change case', async () => {
    const r = await http.post('/api/v1/wallet/username/set/', { username: 'Squid_Lord' }, me.bearer);
    expect(r.status).toBe(200);
    expect(r.body.username).toBe('Squid_Lord');
    const other = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const taken = await http.post('/api/v1/wallet/username/set/', { username: 'squid_lord' }, other.bearer);
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('username_taken');
    expect((await http.post('/api/v1/wallet/username/set/', { username: 'SQUID_LORD' }, me.bearer)).body.username).toBe('SQUID_LORD');
  });

  it('rejects names outside the pattern, reserved names, missing and mistyped bodies', async () => {
    for (const username of ['ab', '9lives', 'has space', 'x'.repeat(31), '0x' + 'a'.repeat(40)]) {
      const r = await http.post('/api/v1/wallet/username/set/', { username }, me.bearer);
      expect(r.status, username).toBe(400);
      expect(r.body.error.code).toBe('username_invalid');
    }
    const reserved = await http.post('/api/v1/wallet/username/set/', { username: 'Admin' }, me.bearer);
    expect(reserved.body.error.code).toBe('username_reserved');
    const missing = await http.post('/api/v1/wallet/username/set/', {}, me.bearer);
    expect(fieldsOf(missing)).toEqual([['body.username', 'required']]);
    expect((await http.post('/api/v1/wallet/username/set/', { username: 5 }, me.bearer)).status).toBe(400);
    expect((await http.post('/api/v1/wallet/username/set/', { username: 'valid_name' })).status).toBe(401);
  });

  it('two accounts racing for one name: exactly one wins', async () => {
    const a = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const b = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const rs = await Promise.all([
      http.post('/api/v1/wallet/username/set/', { username: 'race_name' }, a.bearer),
      http.post('/api/v1/wallet/username/set/', { username: 'RACE_name' }, b.bearer),
    ]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('public profile by address (any case) or username (any case), without roles; unknown is 404', async () => {
    const editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'Public_Ed' });
    await http.put('/api/v1/wallet/profile/', { bio: 'I review' }, editor.bearer);
    for (const id of [editor.address, editor.address.toUpperCase().replace('0X', '0x'), 'public_ed', 'PUBLIC_ED']) {
      const r = await http.get(`/api/v1/users/${id}/`);
      expect(r.status, id).toBe(200);
      expect(r.body).toMatchObject({ id: editor.userId, username: 'Public_Ed', bio: 'I review' });
      expect(r.body).not.toHaveProperty('roles');
    }
    const none = await http.get('/api/v1/users/nobody_here/');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('user_not_found');
    expect((await http.get(`/api/v1/users/0x${'0'.repeat(40)}/`)).status).toBe(404);
  });
});
