/**
 * The seed of `npm run bench:stories -- --load`: N articles and wire items in the last 30 days,
 * already assigned, with the assigner's whole state (stories, members with their features, the
 * lookup keys, the word counts) as the worker would have left it, written in bulk
 * (jsonb_to_recordset, 5,000 rows a statement) instead of assigned one by one.
 *
 * Headlines: the real labelled headlines of test/data/stories/headlines.jsonl, each story one of
 * them plus a made-up name (a pronounceable nonce word, from a pool of 20,000) so that stories are
 * distinct; a story has 1 to 4 items from different hosts within a few hours. The vocabulary is
 * the real set's (common words with realistic document frequencies) plus the names, one rare word
 * per story. Fixed random seed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../../../src/platform/db.js';
import { itemFeatures, type ItemFeatures } from '../../../src/stories/rules/features.js';
import { copyKeys } from '../../../src/stories/rules/lookup.js';

const DATA = path.resolve(import.meta.dirname, '../../../test/data/stories/headlines.jsonl');
const DAY = 86_400_000;
const CHUNK = 5000;

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYL = ['ka', 'zo', 'ri', 'vex', 'lun', 'tar', 'mo', 'qui', 'sen', 'dra', 'pel', 'nox', 'bi', 'gor', 'ul', 'fen'];

/** The real headlines and a pool of made-up names. */
export function corpus(): { headlines: string[]; names: string[] } {
  const headlines = readFileSync(DATA, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { title: string }).title);
  const names: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    let n = '';
    for (let x = i + 4096; x > 0; x = Math.floor(x / 16)) n += SYL[x % 16];
    names.push(n[0]!.toUpperCase() + n.slice(1));
  }
  return { headlines, names };
}

export interface SeedItem {
  kind: 'article' | 'wire';
  story: number;
  title: string;
  url: string;
  host: string;
  at: Date;
  f: ItemFeatures;
}

/** `n` items in stories of 1-4 items over the last 30 days before `now`. */
function seedItems(n: number, now: number, rand: () => number): SeedItem[] {
  const { headlines, names } = corpus();
  const items: SeedItem[] = [];
  for (let story = 1; items.length < n; story++) {
    const base = headlines[Math.floor(rand() * headlines.length)]!;
    const title = `${names[Math.floor(rand() * names.length)]}: ${base}`;
    const start = now - 30 * DAY + rand() * (30 * DAY - 6 * 3600_000);
    const size = 1 + Math.floor(rand() * rand() * 4);
    for (let k = 0; k < size && items.length < n; k++) {
      const host = `outlet${Math.floor(rand() * 400)}.example`;
      const url = `https://${host}/news/${story}-${k}`;
      const at = new Date(start + rand() * 6 * 3600_000);
      items.push({ kind: rand() < 0.5 ? 'article' : 'wire', story, title, url, host, at, f: itemFeatures({ title, url, source: host, at: at.getTime() }) });
    }
  }
  return items;
}

async function bulk(db: Db, table: string, rows: Record<string, unknown>[], columns: string, returning = ''): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const json = JSON.stringify(rows.slice(i, i + CHUNK));
    const q = sql<Record<string, unknown>>`INSERT INTO ${sql.raw(table)} SELECT * FROM jsonb_to_recordset(${json}::jsonb) AS x(${sql.raw(columns)}) ${sql.raw(returning)}`;
    out.push(...(await q.execute(db)).rows);
  }
  return out;
}

async function insertItems(db: Db, items: SeedItem[]): Promise<void> {
  const arts = items.filter((i) => i.kind === 'article');
  const wires = items.filter((i) => i.kind === 'wire');
  const aCols =
    'slug text, headline text, url text, normalized_url text, source text, status text, origin text, created_at timestamptz, published_at timestamptz, updated_at timestamptz, story_id integer';
  const aRows = arts.map((a) => ({
    slug: `s${a.story}-${a.url.slice(-3)}`,
    headline: a.title,
    url: a.url,
    normalized_url: a.url,
    source: a.host,
    status: 'approved',
    origin: 'manual',
    created_at: a.at,
    published_at: a.at,
    updated_at: a.at,
    story_id: a.story,
  }));
  const aIds = await bulk(
    db,
    'articles (slug, headline, url, normalized_url, source, status, origin, created_at, published_at, updated_at, story_id)',
    aRows,
    aCols,
    'RETURNING id',
  );
  arts.forEach((a, i) => ((a as SeedItem & { id: number }).id = aIds[i]!.id as number));
  const wCols = 'normalized_url text, url text, title text, source_name text, source_url text, publisher_claimed_at timestamptz, ingested_at timestamptz, story_id integer';
  const wRows = wires.map((w) => ({
    normalized_url: w.url,
    url: w.url,
    title: w.title,
    source_name: w.host,
    source_url: `https://${w.host}/feed`,
    publisher_claimed_at: w.at,
    ingested_at: w.at,
    story_id: w.story,
  }));
  const wIds = await bulk(db, 'wire_items (normalized_url, url, title, source_name, source_url, publisher_claimed_at, ingested_at, story_id)', wRows, wCols, 'RETURNING id');
  wires.forEach((w, i) => ((w as SeedItem & { id: number }).id = wIds[i]!.id as number));
}

async function insertStories(db: Db, items: SeedItem[]): Promise<number> {
  const stories = new Map<number, { headline: string; first: number; last: number; members: number; sources: Set<string> }>();
  for (const it of items) {
    const s = stories.get(it.story) ?? { headline: it.title, first: it.at.getTime(), last: 0, members: 0, sources: new Set<string>() };
    s.first = Math.min(s.first, it.at.getTime());
    s.last = Math.max(s.last, it.at.getTime());
    s.members += 1;
    s.sources.add(it.host);
    stories.set(it.story, s);
  }
  const sRows = [...stories].map(([id, s]) => ({
    id,
    headline: s.headline,
    first_seen_at: new Date(s.first),
    last_seen_at: new Date(s.last),
    member_count: s.members,
    source_count: s.sources.size,
  }));
  await bulk(
    db,
    'stories (id, headline, first_seen_at, last_seen_at, member_count, source_count)',
    sRows,
    'id integer, headline text, first_seen_at timestamptz, last_seen_at timestamptz, member_count integer, source_count integer',
  );
  // A loop, not Math.max(...keys): a spread of 100,000+ arguments overflows the stack.
  let maxId = 0;
  for (const id of stories.keys()) if (id > maxId) maxId = id;
  await sql`SELECT setval('stories_id_seq', ${maxId + 1})`.execute(db);
  return stories.size;
}

async function insertMembers(db: Db, items: (SeedItem & { id?: number })[]): Promise<void> {
  const keys = new Map<string, number>();
  const df = new Map<string, number>([['', items.length]]);
  for (const it of items) {
    for (const k of new Set([...copyKeys(it.f), ...it.f.words])) keys.set(`${k}\u0000${it.story}`, Math.max(keys.get(`${k}\u0000${it.story}`) ?? 0, it.at.getTime()));
    for (const w of new Set(it.f.words)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const mRows = items.map((it) => ({ item_kind: it.kind, item_id: it.id, story_id: it.story, headline: it.title, url: it.url, source: it.host, seen_at: it.at, features: it.f }));
  await bulk(
    db,
    'story_members (item_kind, item_id, story_id, headline, url, source, seen_at, features)',
    mRows,
    'item_kind text, item_id integer, story_id integer, headline text, url text, source text, seen_at timestamptz, features jsonb',
  );
  const kRows = [...keys].map(([k, t]) => {
    const [key, story] = k.split('\u0000');
    return { key, story_id: Number(story), last_seen_at: new Date(t) };
  });
  await bulk(db, 'story_keys (key, story_id, last_seen_at)', kRows, 'key text, story_id integer, last_seen_at timestamptz');
  await bulk(
    db,
    'story_word_counts (word, items)',
    [...df].map(([word, n]) => ({ word, items: n })),
    'word text, items integer',
  );
}

/** Seeds `n` assigned items; returns the number of stories. */
export async function seedStoriesLoad(db: Db, n: number, now: number): Promise<{ stories: number; items: SeedItem[] }> {
  const items = seedItems(n, now, rng(39));
  const stories = await insertStories(db, items);
  await insertItems(db, items);
  await insertMembers(db, items);
  await sql`ANALYZE`.execute(db);
  return { stories, items };
}
