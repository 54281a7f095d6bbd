/**
 * Picture uploads against everyone else's latency: the p50/p99 of wallet sign-in (GET nonce + POST
 * verify, client-side signing excluded) and of the feed (GET /api/v1/news/), paced probes from
 * their own processes, served by createApp() in this process (as the web process serves them):
 *   idle     no uploads;
 *   gif40    a flood from 16 accounts, each upload sent again as soon as it is answered: the 40-frame
 *            1000x1000 GIF (69 KB, 40 million pixels), refused from its header (413
 *            profile_picture_too_many_pixels);
 *   atcap    the same flood with a 16-frame 1000x1000 GIF (16 million pixels, the most an animation
 *            may have): accepted, re-encoded in the picture process within its bound
 *            (PICTURE_CONCURRENCY / PICTURE_QUEUE_MAX), the uploads beyond it refused at once with 503
 *            profile_picture_busy;
 *   gif40x16, atcapx16  sixteen such uploads at once (one per account), every second;
 *   editx16  the control for the waves: sixteen profile edits without a picture (a JSON bio) at once,
 *            every second: what any sixteen requests of the same route arriving together cost the others;
 *   idle2    no uploads again: the A/A control, what the probes' own noise makes of "p99 vs idle";
 *   gif40x16lim, atcapx16lim  the waves against a second app on the same stack with the default upload
 *            limits (per account and per client address): once the address has spent its hourly uploads,
 *            every upload from it is refused (429) before its body is read.
 * In the other phases the upload limits are raised out of the way so the pool and the caps carry the
 * load alone. The uploaders stand for remote clients: their process runs at the lowest CPU priority, so
 * the CPU they spend making and sending bodies (an attacker's own machine) is not taken from the
 * server on this one; what the server spends receiving, parsing and refusing them is. Rounds alternate the phases; p50 is the median of
 * the rounds; p99 is taken over every round's samples together (more samples than one round's) and
 * compared with the idle phase's (goal: within 1.2x). The GIFs are made here with sharp.
 *   npm run bench:uploads -- [seconds=8] [rounds=3] [--phases=idle,gif40x16,atcapx16,idle2]
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { lowerPriority } from '../../src/platform/process-priority.js';
import { allRoutes } from '../../src/routes.js';
import { benchStack, listenLocal, median } from './lib/bench-stack.js';
import { nextMessage, startProc, waitExit, type Proc } from '../lib/harness.js';
import { pct } from './lib/stats.js';
import { seedFeed } from './seed-feed.js';

const UPLOADERS = 16;
const SIGNINS_PER_S = 8;
const FEED_PER_S = 20;

interface Sample {
  n: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  /** Every latency, sorted (pooled over the rounds for p99). */
  lat: number[];
}

const summary = (lat: number[], statuses: Record<string, number>): Sample => {
  const s = [...lat].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), statuses, lat: s };
};

/** p99 over the samples of every round together. */
const pooledP99 = (samples: Sample[]): number =>
  pct(
    samples.flatMap((x) => x.lat).sort((a, b) => a - b),
    0.99,
  );

/** Child: calls `one` every 1000/rate ms for `seconds` (open loop: a slow answer does not delay the next call). */
async function paced(rate: number, seconds: number, one: () => Promise<{ ms: number; status: number }>): Promise<Sample> {
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  const inflight: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
    inflight.push(
      one().then(
        (r) => {
          lat.push(r.ms);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        },
        () => void (statuses.error = (statuses.error ?? 0) + 1),
      ),
    );
    const next = t0 + ((i + 1) * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(inflight);
  return summary(lat, statuses);
}

/** Child: sign-ins, timed as the two server round trips (the signature is made between them, untimed). */
function signinProbe(base: string, seconds: number): Promise<Sample> {
  const accounts = Array.from({ length: 32 }, () => privateKeyToAccount(generatePrivateKey()));
  let k = 0;
  return paced(SIGNINS_PER_S, seconds, async () => {
    const acct = accounts[k++ % accounts.length];
    let t = performance.now();
    const n = (await (await fetch(`${base}/api/v1/wallet/nonce/${acct.address}/`)).json()) as { nonce: string; message: string };
    let ms = performance.now() - t;
    const signature = await acct.signMessage({ message: n.message });
    t = performance.now();
    const r = await fetch(`${base}/api/v1/wallet/verify/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: acct.address, signature, nonce: n.nonce }),
    });
    await r.arrayBuffer();
    ms += performance.now() - t;
    return { ms, status: r.status };
  });
}

function feedProbe(base: string, seconds: number): Promise<Sample> {
  return paced(FEED_PER_S, seconds, async () => {
    const t = performance.now();
    const r = await fetch(`${base}/api/v1/news/`);
    await r.arrayBuffer();
    return { ms: performance.now() - t, status: r.status };
  });
}

/**
 * Child: uploads of `file`, one account per token. `flood`: each account sends it again as soon as
 * it is answered. `waves`: every second all accounts send it at once (sixteen uploads at once), the
 * next wave at the next second or when the last upload of this one is answered, whichever is later.
 */
async function uploadLoops(base: string, seconds: number, file: string | undefined, tokens: string[], mode: 'flood' | 'waves'): Promise<Sample> {
  const { readFileSync } = await import('node:fs');
  const bytes = file ? readFileSync(file) : undefined;
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  const until = performance.now() + seconds * 1000;
  const upload = async (token: string) => {
    // Without a file: a JSON edit of the bio (the control of the same route without a picture).
    const form = new FormData();
    if (bytes) form.append('profile_picture', new Blob([bytes], { type: 'image/gif' }), 'a.gif');
    const body = bytes ? form : JSON.stringify({ bio: `edited at ${Date.now()}` });
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(bytes ? {} : { 'content-type': 'application/json' }) };
    const t = performance.now();
    // A refusal before the body is read closes the connection: the client may see that as an error.
    const status = await fetch(`${base}/api/v1/wallet/profile/`, { method: 'PUT', headers, body }).then(
      async (r) => (await r.arrayBuffer(), String(r.status)),
      () => 'error',
    );
    lat.push(performance.now() - t);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  if (mode === 'flood') {
    await Promise.all(
      tokens.map(async (token) => {
        while (performance.now() < until) await upload(token);
      }),
    );
  } else {
    while (performance.now() < until) {
      const next = performance.now() + 1000;
      await Promise.all(tokens.map(upload));
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  }
  return summary(lat, statuses);
}

/**
 * Child (forked with an IPC channel): `signin`, `feed` or `upload <base> <tokens-json>`; says ready,
 * then runs one measurement per {type: 'run', seconds, file} and answers {type: 'result', sample}.
 */
async function childMain(kind: string, base: string, tokens: string[]): Promise<void> {
  if (kind === 'upload') lowerPriority();
  process.on('message', (msg: { type: string; seconds: number; file?: string; mode?: 'flood' | 'waves'; base?: string }) => {
    if (msg.type === 'stop') process.exit(0);
    if (msg.type !== 'run') return;
    const run =
      kind === 'signin'
        ? signinProbe(base, msg.seconds)
        : kind === 'feed'
          ? feedProbe(base, msg.seconds)
          : uploadLoops(msg.base ?? base, msg.seconds, msg.file, tokens, msg.mode ?? 'flood');
    void run.then((sample) => process.send!({ type: 'result', sample }));
  });
  process.send!({ type: 'ready' });
}

/** An animated GIF of `frames` flat-coloured 1000x1000 frames (as small as such a file gets). */
async function flatGif(frames: number): Promise<Buffer> {
  const pngs = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp({ create: { width: 1000, height: 1000, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 13) % 256 } } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(pngs, { join: { animated: true } })
    .gif({ loop: 0, delay: 100, effort: 1 })
    .toBuffer();
}

const SECONDS = Number(process.argv[2] ?? 8);
const ROUNDS = Number(process.argv[3] ?? 3);
const ALL_PHASES = ['idle', 'gif40', 'atcap', 'gif40x16', 'atcapx16', 'editx16', 'idle2', 'gif40x16lim', 'atcapx16lim'] as const;
type Phase = (typeof ALL_PHASES)[number];
/** `--phases=idle,gif40x16,...`: only these (idle always runs: every ratio is against it). */
const PHASES: readonly Phase[] = ((): readonly Phase[] => {
  const arg = process.argv.find((a) => a.startsWith('--phases='));
  if (!arg) return ALL_PHASES;
  const asked = new Set(arg.slice('--phases='.length).split(','));
  const unknown = [...asked].filter((p) => !(ALL_PHASES as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown phases ${unknown.join(', ')}; phases are ${ALL_PHASES.join(', ')}`);
  return ALL_PHASES.filter((p) => p === 'idle' || asked.has(p));
})();
/** `cpuMs`: this process's CPU time (the server's: the probes and uploaders are other processes) during the phase. */
type Round = { signin: Sample; feed: Sample; upload?: Sample; cpuMs: number };

async function main(): Promise<void> {
  const stack = await benchStack('uploads', { PROFILE_PICTURE_UPLOADS_PER_HOUR: '1000000', PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR: '1000000' });
  const children: Proc[] = [];
  try {
    const loadBefore = os.loadavg();
    const { origin, limitedOrigin, files, tokens } = await prepare(stack);
    const [signin, feed, upload] = ['signin', 'feed', 'upload'].map((kind) =>
      startProc(kind, 'scripts/bench/picture-uploads.ts', {}, ['child', kind, origin, JSON.stringify(tokens)], { ipc: true, echo: 'all' }),
    );
    children.push(signin, feed, upload);
    await Promise.all(children.map((c) => nextMessage(c, 'ready')));
    const measure = async (c: Proc, seconds: number, file?: string, mode?: 'flood' | 'waves', base?: string) => {
      c.child.send({ type: 'run', seconds, file, mode, base });
      return (await nextMessage<{ sample: Sample }>(c, 'result', 600_000)).sample;
    };
    await Promise.all([measure(signin, 2), measure(feed, 2)]); // warm-up
    const results = Object.fromEntries(PHASES.map((p) => [p, [] as Round[]])) as Record<Phase, Round[]>;
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of PHASES) {
        const file = phase === 'editx16' ? undefined : files[phase.startsWith('gif40') ? 'gif40' : 'atcap'];
        const mode = phase.includes('x16') ? 'waves' : 'flood';
        const uploads = phase.startsWith('idle') ? undefined : measure(upload, SECONDS, file, mode, phase.endsWith('lim') ? limitedOrigin : origin);
        const cpu0 = process.cpuUsage();
        const [s, f, u] = await Promise.all([measure(signin, SECONDS), measure(feed, SECONDS), uploads]);
        const cpu = process.cpuUsage(cpu0);
        results[phase].push({ signin: s, feed: f, upload: u, cpuMs: (cpu.user + cpu.system) / 1000 });
      }
    }
    report(results, loadBefore);
  } catch (err) {
    console.error('[bench] failed:', err);
    process.exitCode = 1;
  } finally {
    for (const c of children) c.child.send({ type: 'stop' });
    await Promise.all(children.map((c) => waitExit(c)));
    await stack.close();
  }
  process.exit(process.exitCode ?? 0);
}

/** Seeds the feed, makes the two GIFs and the uploaders' sessions, and serves the app. */
async function prepare(stack: Awaited<ReturnType<typeof benchStack>>) {
  const { deps, config, db, tmp } = stack;
  await seedFeed(db, 2000);
  const files: Record<'gif40' | 'atcap', string> = { gif40: path.join(tmp, 'gif40.gif'), atcap: path.join(tmp, 'atcap.gif') };
  const t0 = performance.now();
  const gif40 = await flatGif(40);
  const atcap = await flatGif(16);
  writeFileSync(files.gif40, gif40);
  writeFileSync(files.atcap, atcap);
  console.log(`GIFs: 40 x 1000x1000 ${gif40.length} bytes, 16 x 1000x1000 ${atcap.length} bytes (made in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const tokens: string[] = [];
  for (let i = 0; i < UPLOADERS; i++) {
    const address = '0x' + (i + 1).toString(16).padStart(40, 'a');
    const u = await db.insertInto('users').values({ wallet_address: address }).returning('id').executeTakeFirstOrThrow();
    tokens.push(await signAccessToken(config.JWT_SECRET, { userId: u.id, address, roles: [] }));
  }
  const { origin } = await listenLocal(createApp(deps, allRoutes(deps)), { keepAliveTimeoutMs: 30_000 });
  // The same stack with the default upload limits.
  const defaults = loadConfig({ DATABASE_URL: config.DATABASE_URL, REDIS_URL: config.REDIS_URL, JWT_SECRET: config.JWT_SECRET });
  const limited = {
    ...deps,
    config: {
      ...config,
      PROFILE_PICTURE_UPLOADS_PER_HOUR: defaults.PROFILE_PICTURE_UPLOADS_PER_HOUR,
      PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR: defaults.PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR,
    },
  };
  const { origin: limitedOrigin } = await listenLocal(createApp(limited, allRoutes(limited)), { keepAliveTimeoutMs: 30_000 });
  return { origin, limitedOrigin, files, tokens };
}

if (process.argv[2] === 'child') await childMain(process.argv[3], process.argv[4], JSON.parse(process.argv[5] ?? '[]') as string[]);
else await main();

function report(results: Record<Phase, Round[]>, loadBefore: number[]): void {
  const f = (x: number) => x.toFixed(1).padStart(7);
  console.log(
    `${SECONDS} s per phase, ${ROUNDS} alternated rounds (p50: median of the rounds; p99: over all rounds' samples); probes paced at ${SIGNINS_PER_S} sign-ins/s and ${FEED_PER_S} feed GETs/s; ${UPLOADERS} upload loops; ${os.cpus().length} CPUs shared by server, probes, uploaders, PostgreSQL and Redis`,
  );
  for (const phase of PHASES) {
    const rs = results[phase];
    for (const probe of ['signin', 'feed'] as const) {
      const p99 = pooledP99(rs.map((r) => r[probe]));
      const ratio = p99 / pooledP99(results.idle.map((r) => r[probe]));
      const statuses = JSON.stringify(rs.at(-1)![probe].statuses);
      console.log(
        `${phase.padEnd(11)} ${probe.padEnd(7)} p50 ${f(median(rs.map((r) => r[probe].p50)))} ms  p99 ${f(p99)} ms (n ${rs.reduce((a, r) => a + r[probe].n, 0)})  p99 vs idle ${ratio.toFixed(2)}x  (last round ${statuses})`,
      );
    }
    if (!phase.startsWith('idle')) {
      const u = rs.map((r) => r.upload!);
      const per = (k: string) => median(u.map((x) => x.statuses[k] ?? 0));
      // The server's CPU per upload answered: the phase's CPU less the idle phase's (the probes' share), over the uploads.
      const idleCpu = median(results.idle.map((r) => r.cpuMs));
      const cpuPerUpload = median(rs.map((r) => (r.cpuMs - idleCpu) / Math.max(1, r.upload!.n)));
      console.log(
        `${phase.padEnd(11)} uploads answered per round (median): 200 ${per('200')}, 413 ${per('413')}, 503 ${per('503')}, 429 ${per('429')}, connection errors ${per('error')}; p50 ${f(median(u.map((x) => x.p50)))} ms; server CPU ${cpuPerUpload.toFixed(2)} ms per upload (idle phase ${(idleCpu / SECONDS).toFixed(0)} ms/s)`,
      );
    }
  }
  const after = os.loadavg();
  console.log(`load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${after.map((x) => x.toFixed(1)).join(' ')}`);
}
