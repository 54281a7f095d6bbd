/**
 * Picture serving benchmark: the same picture served by the real app
 *  - from PostgreSQL (GET /media/profile-pictures/<sha256>.jpg, as deployed: MEDIA_CACHE_BYTES default),
 *  - from PostgreSQL with the per-process cache off (MEDIA_CACHE_BYTES=0: every request reads the row),
 *  - from the local disk (a baseline handler: stat + file stream, same headers, plus a stat ETag),
 * each as a full 200 and as a conditional request answered 304 (If-None-Match with its ETag).
 * All three are routes of the same createApp() (same middleware: quota in Redis, metrics, headers).
 * Load: keep-alive connections from a separate load-generator process, runs alternated, medians of 3.
 *   npm run bench:media -- [seconds=5] [connections=32] [side=400]
 */
import os from 'node:os';
import type Koa from 'koa';
import { z } from 'zod';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { DomainError } from '../../src/platform/errors/index.js';
import { defineRoute } from '../../src/platform/http/route.js';
import { reencodePicture } from '../../src/media/process.js';
import { ProfilePictureStore } from '../../src/media/profile-pictures.js';
import { mediaName } from '../../src/media/store.js';
import { putMedia } from '../../src/media/queries.js';
import { allRoutes } from '../../src/routes.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { benchStack, runOnStack, listenLocal, median } from './lib/bench-stack.js';

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = Number(process.argv[3] ?? 32);
const SIDE = Number(process.argv[4] ?? 400);
const RUNS = 3;

const stack = await benchStack('media');
await runOnStack(stack, async ({ deps, config, db }) => {
  // A photo-like picture (noise compresses badly, like a real photo), re-encoded as an upload would be.
  const raw = await sharp(Buffer.from(Array.from({ length: SIDE * SIDE * 3 }, () => Math.floor(Math.random() * 256))), { raw: { width: SIDE, height: SIDE, channels: 3 } })
    .blur(1.2)
    .jpeg({ quality: 90 })
    .toBuffer();
  const pic = await reencodePicture(raw, 'jpg');
  await putMedia(db, { sha256: pic.sha256, bytes: pic.bytes, type: pic.type, width: pic.width, height: pic.height });
  const name = mediaName(pic.sha256, pic.type);
  const disk = new ProfilePictureStore(config.PROFILE_PICTURES_DIR);
  const diskName = await disk.save(pic.bytes, 'jpg');
  console.log(`picture: ${pic.width}x${pic.height} JPEG, ${pic.bytes.length} bytes (same bytes in PostgreSQL and on disk)`);

  // The disk-era handler (stat + stream), with a stat ETag and 304 so both sides have a conditional path.
  const diskRoute = defineRoute({
    method: 'get',
    path: '/bench/disk/:file',
    mount: 'root',
    operationId: 'benchDiskPicture',
    summary: 'bench',
    tags: ['bench'],
    params: z.object({ file: z.string().max(64) }),
    responses: { 200: { description: 'ok' } },
    async handler(ctx, { params }) {
      const f = await disk.open(params.file);
      if (!f) throw new DomainError('picture_not_found', 'no such profile picture');
      const etag = `"${f.size.toString(16)}-${f.stream.path.toString().length}"`;
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('ETag', etag);
      if (ctx.get('if-none-match') === etag) {
        f.stream.destroy();
        ctx.status = 304;
        return;
      }
      ctx.type = f.type;
      ctx.length = f.size;
      ctx.body = f.stream;
    },
  });
  const app = createApp(deps, [...allRoutes(deps), diskRoute]);
  const noCacheDeps = { ...deps, config: { ...config, MEDIA_CACHE_BYTES: 0 } };
  const appNoCache = createApp(noCacheDeps, allRoutes(noCacheDeps));
  const listen = async (a: Koa) => (await listenLocal(a, { keepAliveTimeoutMs: 30_000 })).origin;
  const url = await listen(app);
  const urlNoCache = await listen(appNoCache);
  const diskEtag = (await fetch(`${url}/bench/disk/${diskName}`)).headers.get('etag')!;
  const pgEtag = (await fetch(`${url}/media/profile-pictures/${name}`)).headers.get('etag')!;
  type T = { url: string; headers: Record<string, string>; status: number };
  const targets: Record<string, T> = {
    disk: { url: `${url}/bench/disk/${diskName}`, headers: {}, status: 200 },
    pg: { url: `${url}/media/profile-pictures/${name}`, headers: {}, status: 200 },
    pgNoCache: { url: `${urlNoCache}/media/profile-pictures/${name}`, headers: {}, status: 200 },
    disk304: { url: `${url}/bench/disk/${diskName}`, headers: { 'if-none-match': diskEtag }, status: 304 },
    pg304: { url: `${url}/media/profile-pictures/${name}`, headers: { 'if-none-match': pgEtag }, status: 304 },
    pg304NoCache: { url: `${urlNoCache}/media/profile-pictures/${name}`, headers: { 'if-none-match': pgEtag }, status: 304 },
  };
  for (const t of Object.values(targets)) await loadFromChild(t.url, 1, CONNECTIONS, t.headers); // warm-up
  const results: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const [k, t] of Object.entries(targets)) {
      const r = await loadFromChild(t.url, SECONDS, CONNECTIONS, t.headers);
      if (r.errors || (r.statuses[String(t.status)] ?? 0) !== r.requests) throw new Error(`${k}: ${JSON.stringify(r.statuses)} errors ${r.errors}`);
      results[k].push(r);
    }
  }
  const rps = (k: string) => median(results[k].map((r) => r.rps));
  const p99 = (k: string) => median(results[k].map((r) => r.p99));
  const line = (label: string, k: string, base: string) =>
    `${label.padEnd(44)} ${rps(k).toFixed(0).padStart(6)} req/s  p99 ${p99(k).toFixed(1).padStart(6)} ms` +
    (k === base ? '   (baseline)' : `   vs disk: ${(rps(k) / rps(base)).toFixed(2)}x req/s, ${(p99(k) / p99(base)).toFixed(2)}x p99`);
  console.log(
    `load: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per run, median of ${RUNS} alternated runs, ${os.cpus().length} CPUs shared by server, load generator and Postgres`,
  );
  console.log(line('200 from disk (stat + stream)', 'disk', 'disk'));
  console.log(line('200 from PostgreSQL (as deployed, cached)', 'pg', 'disk'));
  console.log(line('200 from PostgreSQL (MEDIA_CACHE_BYTES=0)', 'pgNoCache', 'disk'));
  console.log(line('304 from disk (If-None-Match)', 'disk304', 'disk304'));
  console.log(line('304 from PostgreSQL (as deployed, cached)', 'pg304', 'disk304'));
  console.log(line('304 from PostgreSQL (MEDIA_CACHE_BYTES=0)', 'pg304NoCache', 'disk304'));
  console.log(
    `goals: 200 from PostgreSQL >= 0.5x disk req/s: ${(rps('pgNoCache') / rps('disk')).toFixed(2)}x uncached, ${(rps('pg') / rps('disk')).toFixed(2)}x cached; 304 path >= 0.8x: ${(rps('pg304NoCache') / rps('disk304')).toFixed(2)}x uncached, ${(rps('pg304') / rps('disk304')).toFixed(2)}x cached`,
  );
});
