/**
 * Provenance and wire benchmark.
 *
 *  1. Seeds (generate_series SQL, fixed random seed) 100,000 curated articles and 20,000 others
 *     (submitted, killed, sponsored) in the 30-day window, and 500,000 wire items with a receipt each.
 *  2. POST /api/v1/provenance/check through the app (in this process, real HTTP) and a worker
 *     process (src/bin/worker.ts), by URL and by text: p50 / p99 of the HTTP round trip.
 *  3. The text matcher alone (trigram candidates from the provenance headline index + string-similarity,
 *     in this process, at the configured PROVENANCE_TRGM_THRESHOLD and at 0.4 and 0.5), and in the
 *     same run a naive scan that reads every curated headline of the window and scores each with
 *     string-similarity: the speed-up ratio, and how often the matcher finds the naive scan's best match.
 *  4. Ingest throughput: the wire-fetch job over a local RSS feed of 10,000 items (fetch, parse, store,
 *     news.tsunami events), items per second.
 *
 * Starts its own PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are set (a database named
 * bench_provenance_<pid> is created on that server and dropped at the end).
 *   npx tsx scripts/bench/provenance.ts [--articles=100000] [--wire=500000] [--queries=300] [--naive=40] [--feed=10000]
 *
 * The per-IP rate limit of the check (30/min) would stop a benchmark: each request carries its own
 * X-Forwarded-For (TRUST_PROXY=true), so the limiter still runs but never refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { job as wireFetch } from '../../jobs/wire-fetch.js';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { HEADLINE_MATCH_THRESHOLD, headlineSimilarity } from '../../src/provenance/rules/headline-similarity.js';
import { provenanceSettings } from '../../src/provenance/rules/settings.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { LOOKBACK_MS } from '../../src/provenance/rules/verdict.js';
import { checkProvenance, refreshCommonWords } from '../../src/provenance/queries.js';
import { addSource } from '../../src/wire/queries.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { backingServices } from '../lib/backing-services.js';
import type { RunningService } from '../lib/services.js';
import { startProcfileType, type Proc } from '../lib/harness.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { jobs } from '../../jobs/index.js';

const arg = (name: string, def: number) => {
  const m = process.argv.find((a) => a.startsWith(`--${name}=`));
  return m ? Number(m.split('=')[1]) : def;
};
const ARTICLES = arg('articles', 100_000);
const WIRE = arg('wire', 500_000);
const QUERIES = arg('queries', 300);
const NAIVE = arg('naive', 40);
const FEED = arg('feed', 10_000);
const OTHERS = Math.round(ARTICLES / 5);

const log = (l: string) => console.error(`[bench] ${l}`);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] };
};

// ---------------------------------------------------------------------------------------------
// Data

const VOCAB = sql`
  SELECT
   ARRAY['Bitcoin','Ethereum','Solana','Cardano','Polkadot','Avalanche','Chainlink','Uniswap','Aave','Compound','MakerDAO','Lido','Arbitrum','Optimism','Polygon','zkSync','Starknet','Base','Blast','Celestia','Cosmos','Near','Aptos','Sui','Tron','Tether','Circle','Coinbase','Binance','Kraken','OKX','Bybit','Bitstamp','Gemini','Robinhood','BlackRock','Fidelity','Grayscale','MicroStrategy','Galaxy Digital','Ripple','XRP','Dogecoin','Shiba Inu','Pepe','Bonk','Jupiter','Raydium','Curve','Convex','Frax','Ethena','EigenLayer','Pendle','GMX','dYdX','Hyperliquid','Worldcoin','Filecoin','Arweave','Render','Helium','The Graph','Injective','Sei','Toncoin','Telegram','Stacks','Ordinals','Runes','Lightning Network','Monero','Zcash','Litecoin','Bitcoin Cash','Stellar','Algorand','Hedera','VeChain','Tezos','Kaspa','Fantom','Sonic','Berachain','Monad','LayerZero','Wormhole','Axelar','Chainalysis','Elliptic','Nansen','Messari','a16z','Paradigm','Pantera','Jump Crypto','Wintermute','Cumberland','Metamask','Ledger','Trezor','Phantom','OpenSea','Blur','Magic Eden','Yuga Labs','Immutable','Ronin','Axie Infinity','Decentraland','The Sandbox','ApeCoin','Mt. Gox','FTX','Celsius','Voyager','Terra','Do Kwon','Sam Bankman-Fried','Changpeng Zhao','Vitalik Buterin','Michael Saylor','Gary Gensler','Paul Atkins','Hester Peirce','Brian Armstrong','Richard Teng','Cathie Wood','Larry Fink','Jerome Powell','the SEC','the CFTC','the Fed','the ECB','the DOJ','Hong Kong','Singapore','Dubai','El Salvador','Argentina','Brazil','Nigeria','South Korea','Japan','the UK','the EU'] AS subj,
   ARRAY['launches','unveils','acquires','sues','settles with','partners with','integrates','lists','delists','halts','resumes','files for','approves','rejects','delays','announces','raises','cuts','doubles','slashes','expands','exits','enters','backs','invests in','sells','buys','mints','burns','hacks','drains','freezes','unfreezes','recovers','upgrades','forks','migrates','deploys','pauses','bans','legalizes','taxes','probes','fines','charges','warns','endorses','joins','leaves','hires'] AS verb,
   ARRAY['spot ETF','stablecoin','layer-2 network','mainnet','testnet','airdrop','token','governance proposal','staking program','lending market','DEX','bridge','custody service','payments app','wallet','derivatives exchange','perpetuals','treasury','reserve','mining operation','validator set','sequencer','rollup','oracle network','NFT marketplace','memecoin','restaking protocol','yield vault','options desk','OTC desk','prediction market','AI agent platform','tokenized fund','tokenized treasury bills','CBDC pilot','licensing regime','tax rules','framework','bill','lawsuit','investigation','settlement','merger','IPO','funding round','bug bounty','exploit','outage','upgrade','hard fork'] AS obj,
   ARRAY['ka','zo','ri','ve','lu','na','tor','bex','qui','mo','dra','sen','pha','lix','gor','tha','vin','ree','xo','ul','ar','ben','cy','dex','fi','gal','hy','ion','jet','kor','lum','mir','nex','orb','pix','quo','ryn','sol','tek','vox'] AS syl,
   ARRAY['','','','x','ia','on','fi','swap','chain','dao','net','verse'] AS suf,
   ARRAY['amid market slump','after record inflows','as prices surge','despite regulatory pressure','in landmark deal','following hack','ahead of halving','as volumes spike','in surprise move','after months of delays','for first time','in Asia','in Europe','in the US','with $50M backing','worth $1.2B','after court ruling','as traders flee','amid ETF frenzy',''] AS tail`;

/** One synthetic headline: a known or generated project, a verb, maybe a second name, an object, maybe an amount, a tail. */
const HEADLINE = sql.raw(`
  CASE WHEN random() < 0.5 THEN subj[1 + floor(random() * array_length(subj, 1))::int]
       ELSE initcap(syl[1 + floor(random() * 40)::int] || syl[1 + floor(random() * 40)::int] || suf[1 + floor(random() * 12)::int]) END
  || ' ' || verb[1 + floor(random() * array_length(verb, 1))::int] || ' ' ||
  CASE WHEN random() < 0.4 THEN initcap(syl[1 + floor(random() * 40)::int] || syl[1 + floor(random() * 40)::int] || suf[1 + floor(random() * 12)::int]) || ' ' ELSE '' END ||
  obj[1 + floor(random() * array_length(obj, 1))::int] ||
  CASE WHEN random() < 0.35 THEN ' worth $' || (5 + floor(random() * 995))::int || (ARRAY['M','B','K'])[1 + floor(random() * 3)::int] ELSE '' END
  || ' ' || tail[1 + floor(random() * array_length(tail, 1))::int]`);

async function seed(db: ReturnType<typeof createDb>) {
  const t0 = performance.now();
  await db.connection().execute(async (c) => {
    await sql`SELECT setseed(0.42)`.execute(c);
    await sql`
      INSERT INTO articles (slug, headline, url, normalized_url, source, status, origin, created_at, published_at, sponsored, tags)
      SELECT 'a-' || g, trim(h), 'https://news' || (g % 97) || '.example.com/story/' || g, 'https://news' || (g % 97) || '.example.com/story/' || g,
             'news' || (g % 97) || '.example.com',
             CASE WHEN g <= ${sql.lit(ARTICLES)} THEN 'approved' WHEN g % 3 = 0 THEN 'killed' ELSE 'submitted' END,
             CASE WHEN g > ${sql.lit(ARTICLES)} AND g % 2 = 0 THEN 'tsunami' ELSE 'manual' END,
             ts, CASE WHEN g <= ${sql.lit(ARTICLES)} THEN ts + interval '10 minutes' END,
             CASE WHEN g > ${sql.lit(ARTICLES + Math.round(OTHERS * 0.9))} THEN '{"tier":"express","ad_status":"sponsored_approved","is_paid":true}'::jsonb END,
             ARRAY['defi']
      FROM (SELECT g, now() - random() * interval '29 days 23 hours' AS ts, ${HEADLINE} AS h
            FROM generate_series(1, ${sql.lit(ARTICLES + OTHERS)}) g, (${VOCAB}) v) s`.execute(c);
    log(`articles: ${ARTICLES} curated + ${OTHERS} others in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const t1 = performance.now();
    await sql`INSERT INTO wire_sources (name, url, weight) SELECT 'Wire ' || g, 'https://wire' || g || '.example.com/feed.xml', 0.5 + (g % 5) * 0.25 FROM generate_series(1, 50) g`.execute(
      c,
    );
    await sql`
      INSERT INTO wire_items (normalized_url, url, title, source_id, source_name, source_url, publisher_claimed_at, ingested_at, scored_at, novelty, score)
      SELECT 'https://wire' || (1 + g % 50) || '.example.com/item/' || g, 'https://wire' || (1 + g % 50) || '.example.com/item/' || g || '?utm_source=rss',
             trim(h), 1 + g % 50, 'Wire ' || (1 + g % 50), 'https://wire' || (1 + g % 50) || '.example.com/feed.xml', ts - interval '5 minutes', ts, ts, 0, 0
      FROM (SELECT g, now() - random() * interval '29 days 23 hours' AS ts, ${HEADLINE} AS h FROM generate_series(1, ${sql.lit(WIRE)}) g, (${VOCAB}) v) s`.execute(c);
    await sql`
      INSERT INTO wire_receipts (wire_item_id, source_id, source_name, source_url, item_url, publisher_claimed_at, ingested_at)
      SELECT id, source_id, source_name, source_url, url, publisher_claimed_at, ingested_at FROM wire_items`.execute(c);
    log(`wire: ${WIRE} items + receipts in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    await sql`VACUUM ANALYZE articles`.execute(c);
    await sql`VACUUM ANALYZE wire_items`.execute(c);
    await sql`VACUUM ANALYZE wire_receipts`.execute(c);
    // The provenance headline index (filled by the articles trigger during the insert above).
    await sql`VACUUM ANALYZE provenance_headlines`.execute(c);
  });
}

const REWORD: Record<string, string> = {
  launches: 'unveils',
  unveils: 'launches',
  acquires: 'buys',
  buys: 'acquires',
  sues: 'takes legal action against',
  approves: 'greenlights',
  halts: 'pauses',
  pauses: 'halts',
  announces: 'reveals',
  raises: 'secures',
  cuts: 'slashes',
  slashes: 'cuts',
  hacks: 'exploits',
  drains: 'empties',
};

/** A rewording an editor or another outlet might write: a verb swapped for a synonym, one trailing word dropped, lower case. */
function reword(h: string, i: number): string {
  const words = h.split(' ');
  const out = words.map((w) => REWORD[w] ?? w);
  if (out.length > 5 && i % 2 === 0) out.splice(out.length - 1, 1);
  return out.join(' ').toLowerCase();
}

function rssFeed(n: number): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    items.push(
      `<item><title>Feed story ${i}: Zorlux partners with Kavex on bridge ${i}</title><link>https://feed.example.com/story/${i}?utm_source=rss&amp;utm_medium=feed</link><guid isPermaLink="false">s-${i}</guid><pubDate>${new Date(Date.now() - i * 60_000).toUTCString()}</pubDate><description>Story ${i} summary text for the wire.</description></item>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Bench feed</title>${items.join('')}</channel></rss>`;
}

// ---------------------------------------------------------------------------------------------

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-prov-'));
const started: RunningService[] = [];
let worker: Proc | undefined;
let adminUrl = '';
const dbName = `bench_provenance_${process.pid}`;

try {
  console.log(
    `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average at start ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const backing = await backingServices(tmp, started, { log });
  adminUrl = backing.adminUrl;
  const redisUrl = backing.redisUrl;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const databaseUrl = u.toString();
  const prefix = `benchprov${process.pid}`;
  const childVars: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'b'.repeat(40),
    OUTBOUND_ALLOW_PRIVATE: 'true',
    NODE_ENV: 'test',
  };
  // PROVENANCE_TRGM_THRESHOLD from the environment applies to the worker and the in-process matcher alike.
  if (process.env.PROVENANCE_TRGM_THRESHOLD) childVars.PROVENANCE_TRGM_THRESHOLD = process.env.PROVENANCE_TRGM_THRESHOLD;
  const config: Config = loadConfig({ ...childVars, TRUST_PROXY: 'true', JOB_WAIT_MS: '10000', ANON_DAILY_QUOTA: '100000000' });

  const db = createDb(databaseUrl, { max: 10, applicationName: 'bench' });
  await migrateToLatest(db);
  await seed(db);
  // Steady state: the hourly provenance-headlines-maintain job has learnt the window's common words.
  const tm = performance.now();
  const commonWords = await refreshCommonWords(db, new Date(Date.now() - LOOKBACK_MS));
  log(`provenance common words: ${commonWords} (refresh ${((performance.now() - tm) / 1000).toFixed(2)} s)`);

  worker = startProcfileType('worker', childVars, { echo: 'all' });
  const redis = createRedis(redisUrl, 'command', 'bench', { autoPipelining: true }); // as src/bin/web.ts
  const queue = new QueueClient(jobs, redis, redisUrl, prefix);
  const events = new EventPublisher(redis, eventStreamKey(prefix), config.EVENT_STREAM_MAXLEN);
  const deps: AppDeps = { config, log: createLogger('bench', 'silent'), db, redis, queue, events };
  const server = http.createServer(koaListener(createApp(deps)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let ip = 0;
  const post = async (body: unknown) => {
    ip++;
    const res = await fetch(`${base}/api/v1/provenance/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`check answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };

  // Query sets, drawn from the seeded data.
  const curated = (
    await sql<{
      headline: string;
      normalized_url: string;
    }>`SELECT headline, normalized_url FROM articles WHERE status = 'approved' ORDER BY random() LIMIT ${sql.lit(QUERIES)}`.execute(db)
  ).rows;
  const wireOnly = (await sql<{ normalized_url: string }>`SELECT normalized_url FROM wire_items ORDER BY random() LIMIT ${sql.lit(Math.round(QUERIES / 3))}`.execute(db)).rows;
  const urlQueries = [
    ...curated.slice(0, Math.round(QUERIES / 2)).map((r) => `${r.normalized_url}?utm_source=twitter&fbclid=abc`),
    ...wireOnly.map((r) => `${r.normalized_url}?utm_medium=rss`),
    ...Array.from({ length: QUERIES - Math.round(QUERIES / 2) - wireOnly.length }, (_, i) => `https://unseen.example.org/post/${i}`),
  ];
  const textQueries = [
    ...curated.slice(0, Math.round(QUERIES * 0.7)).map((r, i) => reword(r.headline, i)),
    ...Array.from({ length: QUERIES - Math.round(QUERIES * 0.7) }, (_, i) => `Quenzix announces partnership with Dravolt on payments rails ${i}`),
  ];

  // Warm-up: the worker is up and caches are warm.
  for (;;) {
    try {
      await post({ url: 'https://warm.example/x' });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  for (let i = 0; i < 30; i++) await post({ text: textQueries[i % textQueries.length] });
  for (let i = 0; i < 30; i++) await post({ url: urlQueries[i % urlQueries.length] });

  console.log(`data: ${ARTICLES} curated articles + ${OTHERS} others, ${WIRE} wire items (+ receipts), all within 30 days`);

  const urlLat: number[] = [];
  let urlMatched = 0;
  for (const q of urlQueries) {
    const t = performance.now();
    const r = await post({ url: q });
    urlLat.push(performance.now() - t);
    if (r.match_count > 0 || r.tsunami_receipts.length > 0) urlMatched++;
  }
  const us = summary(urlLat);
  console.log(
    `POST /provenance/check by URL  (${urlQueries.length} requests, app + worker): p50 ${fmt(us.p50)}, p99 ${fmt(us.p99)}, max ${fmt(us.max)}; ${urlMatched} found a match or receipt`,
  );

  const textLat: number[] = [];
  let textMatched = 0;
  for (const q of textQueries) {
    const t = performance.now();
    const r = await post({ text: q });
    textLat.push(performance.now() - t);
    if (r.match_count > 0) textMatched++;
  }
  const ts = summary(textLat);
  console.log(
    `POST /provenance/check by text (${textQueries.length} requests, app + worker): p50 ${fmt(ts.p50)}, p99 ${fmt(ts.p99)}, max ${fmt(ts.max)}; ${textMatched} matched (${Math.round(QUERIES * 0.7)} were rewordings of curated headlines)`,
  );

  // Matcher alone vs naive scan, same queries, same process.
  const trgmThreshold = provenanceSettings(config).trgmThreshold;
  const naiveQueries = textQueries.filter((_, i) => i % Math.max(1, Math.floor(textQueries.length / NAIVE)) === 0).slice(0, NAIVE);
  const thresholds = [...new Set([trgmThreshold, 0.4, 0.5])];
  const matcherLat = new Map<number, number[]>(thresholds.map((t) => [t, []]));
  const agreeAt = new Map<number, number>(thresholds.map((t) => [t, 0]));
  const naiveLat: number[] = [];
  const naiveScoreOnly: number[] = [];
  let naiveHasMatch = 0;
  for (const q of naiveQueries) {
    const found = new Map<number, number[]>();
    for (const t of thresholds) {
      const t0 = performance.now();
      const m = await checkProvenance(db, { text: q }, { now: new Date(), trgmThreshold: t });
      matcherLat.get(t)!.push(performance.now() - t0);
      found.set(
        t,
        m.matches.map((x) => x.news_id),
      );
    }
    const t1 = performance.now();
    const rows = (
      await sql<{ id: number; headline: string }>`
      SELECT id, headline FROM articles WHERE status = 'approved' AND sponsored IS NULL AND created_at >= now() - interval '30 days'`.execute(db)
    ).rows;
    const t2 = performance.now();
    let best = { id: 0, s: 0 };
    for (const r of rows) {
      const s = headlineSimilarity(q, r.headline);
      if (s > best.s) best = { id: r.id, s };
    }
    const t3 = performance.now();
    naiveLat.push(t3 - t1);
    naiveScoreOnly.push(t3 - t2);
    if (best.s >= HEADLINE_MATCH_THRESHOLD) {
      naiveHasMatch++;
      for (const t of thresholds) if (found.get(t)!.includes(best.id)) agreeAt.set(t, agreeAt.get(t)! + 1);
    }
  }
  const ns = summary(naiveLat);
  const nss = summary(naiveScoreOnly);
  console.log(
    `naive scan (${naiveQueries.length} of the text queries: read all ${ARTICLES} curated headlines of the window, score each with string-similarity): p50 ${fmt(ns.p50)}, p99 ${fmt(ns.p99)} (scoring alone p50 ${fmt(nss.p50)})`,
  );
  for (const t of thresholds) {
    const ms = summary(matcherLat.get(t)!);
    console.log(
      `text matcher alone, PROVENANCE_TRGM_THRESHOLD=${t}${t === trgmThreshold ? ' (configured)' : ''}: p50 ${fmt(ms.p50)}, p99 ${fmt(ms.p99)}; speed-up vs naive (p50/p50) ${(ns.p50 / ms.p50).toFixed(1)}x; found the naive scan's best match (>= ${HEADLINE_MATCH_THRESHOLD}) for ${agreeAt.get(t)} of ${naiveHasMatch} queries`,
    );
  }
  console.log(`speed-up, naive p50 / end-to-end text check p50 (app + queue + worker): ${(ns.p50 / ts.p50).toFixed(1)}x`);

  // Ingest throughput: one wire-fetch of a local feed with FEED items, in this process.
  const feedBody = rssFeed(FEED);
  const feedServer = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
    res.end(feedBody);
  });
  await new Promise<void>((r) => feedServer.listen(0, '127.0.0.1', r));
  const source = await addSource(db, { name: 'Bench feed', url: `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.xml` });
  const ingestConfig = {
    ...config,
    OUTBOUND_ALLOW_PRIVATE: true,
    WIRE_MAX_ITEMS_PER_FETCH: FEED,
    WIRE_FETCH_MAX_BYTES: 100 * 1024 * 1024,
    WIRE_FETCH_TIMEOUT_MS: 120_000,
  } as Config;
  const ti = performance.now();
  const result = (await wireFetch.run(
    { source_id: source.id },
    { config: ingestConfig, db, redis, events, log: deps.log, enqueue: queue.enqueuer },
    { attempt: 1, jobId: 'bench' },
  )) as { created?: number };
  const ingestMs = performance.now() - ti;
  console.log(
    `ingest: ${FEED} items (${(feedBody.length / 1024 / 1024).toFixed(1)} MiB RSS from a local feed; fetch, parse, normalise, store with receipts, ${result.created} news.tsunami events) in ${(ingestMs / 1000).toFixed(2)} s = ${Math.round((FEED / ingestMs) * 1000)} items/s`,
  );
  const tr = performance.now();
  const rerun = (await wireFetch.run(
    { source_id: source.id },
    { config: ingestConfig, db, redis, events, log: deps.log, enqueue: queue.enqueuer },
    { attempt: 1, jobId: 'bench2' },
  )) as { created?: number };
  console.log(`re-run of the same feed (no validators, everything seen): ${rerun.created} new in ${((performance.now() - tr) / 1000).toFixed(2)} s`);
  console.log(
    `load average at end ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );

  feedServer.close();
  server.close();
  await queue.close();
  redis.disconnect();
  await db.destroy();
} finally {
  await worker?.stop();
  if (adminUrl) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin
      .connect()
      .then(() => admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`))
      .catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
