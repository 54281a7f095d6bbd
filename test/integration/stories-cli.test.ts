import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/platform/db.js';
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import { addSource, ingestItems } from '../../src/wire/queries.js';
import { runCliCaptured } from '../support/cli.js';
import { createTestEnv, type TestEnv } from '../support/context.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stories-cli-'));
const DATA = path.resolve(import.meta.dirname, '../data/stories/headlines.jsonl');

function file(name: string, lines: string[]): string {
  const p = path.join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

describe('stories replay', () => {
  it('prints {"id","story"} per input line in input order, assigning in published_at order', async () => {
    const input = file('ok.jsonl', [
      JSON.stringify({
        id: 'late',
        title: 'Binance Futures launches XRP/USDT perpetual contracts with upto 75x leverage',
        url: 'https://amb.example/x',
        source: 'AMB',
        published_at: '2020-01-06T13:18:00Z',
      }),
      JSON.stringify({ id: 7, title: 'Coinbase reports third-quarter loss as volumes drop', url: 'https://r.example/c', source: 'Reuters', published_at: '2022-11-03T20:21:00Z' }),
      JSON.stringify({
        id: 'early',
        title: 'Binance Futures launches XRP perpetual contract, with up to 75x leverage',
        url: 'https://block.example/b',
        source: 'TheBlock',
        published_at: '2020-01-06T12:07:00Z',
      }),
    ]);
    const r = await runCliCaptured({}, ['stories', 'replay', '--input', input]);
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').map((l) => JSON.parse(l) as { id: unknown; story: number });
    expect(rows.map((x) => x.id)).toEqual(['late', 7, 'early']);
    expect(rows[0]!.story).toBe(rows[2]!.story);
    expect(rows[1]!.story).not.toBe(rows[0]!.story);
    // The earliest item opened the first story.
    expect(rows[2]!.story).toBe(1);
  });

  it('replays the labelled real headlines deterministically, one output line per input line', async () => {
    const a = await runCliCaptured({}, ['stories', 'replay', `--input=${DATA}`]);
    const b = await runCliCaptured({}, ['stories', 'replay', `--input=${DATA}`]);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    const ids = readFileSync(DATA, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(a.out.split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(ids);
  });

  it('reports bad lines with their numbers, exits 2 and prints nothing else', async () => {
    const input = file('bad.jsonl', [
      JSON.stringify({ id: 1, title: 'A fine headline here', published_at: '2025-07-28T09:00:00Z' }),
      '{not json',
      JSON.stringify({ id: 3, url: 'https://x.example/no-title', published_at: '2025-07-28T09:00:00Z' }),
    ]);
    const r = await runCliCaptured({}, ['stories', 'replay', '--input', input]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/line 2: not valid JSON/);
    expect(r.err).toMatch(/line 3: missing "title"/);
    expect(r.err).not.toMatch(/line 1:/);
    expect((await runCliCaptured({}, ['stories', 'replay'])).code).toBe(2);
    expect((await runCliCaptured({}, ['stories', 'replay', '--input', path.join(dir, 'missing.jsonl')])).code).toBe(1);
  });
});

describe('stories backfill and reindex', () => {
  let env: TestEnv;
  let db: Db;
  beforeAll(async () => {
    env = await createTestEnv();
    db = createDb(env.databaseUrl, { max: 2 });
  });
  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('assigns every unassigned wire item and resumes where it stopped', async () => {
    const source = await addSource(db, { name: 'Backfill Desk', url: 'https://backfill.example/feed' });
    const titles = ['Metaplanet buys 780 more bitcoin, stash now 17,132 BTC', 'Metaplanet adds 780 Bitcoin, now holds 17,132 BTC', 'Ethereum Fusaka upgrade set for November'];
    await ingestItems(
      db,
      { id: source.id, name: source.name, url: source.url },
      titles.map((title, i) => ({ normalizedUrl: normalizeUrl(`https://n${i}.example/a`)!, url: `https://n${i}.example/a`, title, summary: null, guid: null, publishedAt: null })),
      new Date(),
    );
    const first = await runCliCaptured(env.env, ['stories', 'backfill', '--batch', '2']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/done: 3 item\(s\) assigned/);
    const rows = await db.selectFrom('wire_items').select(['title', 'story_id']).orderBy('id').execute();
    expect(rows.every((r) => r.story_id !== null)).toBe(true);
    expect(rows[0]!.story_id).toBe(rows[1]!.story_id);
    expect(rows[2]!.story_id).not.toBe(rows[0]!.story_id);
    const again = await runCliCaptured(env.env, ['stories', 'backfill']);
    expect(again.out).toMatch(/done: 0 item\(s\) assigned/);
  });

  it('reindexes the stories of the window and refuses a bad --batch', async () => {
    const r = await runCliCaptured(env.env, ['stories', 'reindex', '--batch', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/reindexed 1 stories\nreindexed 2 stories\ndone: 2 stories, 3 members; word counts recounted/);
    expect((await runCliCaptured(env.env, ['stories', 'reindex', '--batch', '0'])).code).toBe(2);
  });
});
