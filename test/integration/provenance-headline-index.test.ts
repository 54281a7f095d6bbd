/**
 * The provenance headline index (migration 20261122T100000_provenance_headline_index): its SQL
 * normalisation agrees with normalizeHeadline, it follows every article write (a trigger), and the
 * maintenance job drops rows older than the window and finds the common words that make a query's
 * distinctive words.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { job as maintain } from '../../jobs/provenance-headlines-maintain.js';
import { COVERED_STATUSES } from '../../src/wire/index.js';
import { normalizeHeadline } from '../../src/provenance/rules/headline-similarity.js';
import { provenanceSettings } from '../../src/provenance/rules/settings.js';
import { slugify } from '../../src/platform/url/slug.js';
import { checkProvenance, headlineCandidates } from '../../src/provenance/queries.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { headlinePairs, heldOutHeadlinePairs } from '../data/provenance-headline-pairs.js';

let deps: TestDeps;
const D = 24 * 3600_000;
let seq = 0;

beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(() => deps.close());

async function article(headline: string, o: { status?: ArticleStatus; ageMs?: number; sponsored?: boolean } = {}) {
  const url = `https://index.example/${++seq}`;
  const row = await deps.db
    .insertInto('articles')
    .values({
      slug: slugify(headline),
      headline,
      url,
      normalized_url: url,
      source: 'index.example',
      status: o.status ?? 'approved',
      created_at: new Date(Date.now() - (o.ageMs ?? 3600_000)),
      sponsored: o.sponsored ? JSON.stringify({ tier: 'express', ad_status: 'sponsored_approved', is_paid: true }) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const check = (text: string) => checkProvenance(deps.db, { text }, { now: new Date(), trgmThreshold: provenanceSettings(deps.config).trgmThreshold });
const found = async (text: string, id: number) => (await check(text)).matches.some((m) => m.news_id === id);

describe('SQL normalisation', () => {
  it('gives exactly what normalizeHeadline gives, on every labelled headline and on awkward ones', async () => {
    const headlines = [
      ...[...headlinePairs, ...heldOutHeadlinePairs].flatMap((p) => [p.a, p.b]),
      'BTC tops $1.5B',
      'Bitcoin above 1.5 billion',
      '$100,000 Bitcoin: BTC breaks $100K',
      'Café’s naïve “ETF” exchange-traded funds',
      'U.S. SEC sues Coinbase in the United States of America',
      'Uniswap v4 goes live on 11 chains; Aave v3 on Base',
      'Five-hour outage at 3.75m TPS',
      'Mt. Gox begins repayments',
      'the of a',
      '',
      '   ',
      'Ethereum L2s: 1,234,567 txs/day, $2.5 trillion TVL, 10k users',
    ];
    const { rows } = await sql<{ h: string; n: string }>`SELECT h, provenance_normalize_headline(h) AS n FROM unnest(${headlines}::text[]) h`.execute(deps.db);
    const differ = rows.filter((r) => r.n !== normalizeHeadline(r.h)).map((r) => ({ headline: r.h, sql: r.n, ts: normalizeHeadline(r.h) }));
    expect(differ).toEqual([]);
  });

  it('keys are the normalised words cut to 4 characters, each once', async () => {
    const { rows } = await sql<{ k: string }>`SELECT provenance_headline_key('Binance launches staking; Binance launched stake pools') AS k`.execute(deps.db);
    expect(rows[0].k).toBe('bina laun pool stak');
  });
});

describe('index follows article writes', () => {
  it('approve, edit, kill, sponsor and delete change what a text check finds', async () => {
    const h = 'Zorvex Finance launches perpetuals exchange on Arbitrum';
    const id = await article(h, { status: 'submitted' });
    // Submitted articles are coverage for wire promotion, not for checks.
    expect(await found(h, id)).toBe(false);
    const promo = await headlineCandidates(deps.db, h, new Date(Date.now() - 30 * D), {
      trgmThreshold: provenanceSettings(deps.config).trgmThreshold,
      limit: 20,
      statuses: COVERED_STATUSES,
    });
    expect(promo.map((c) => c.id)).toContain(id);

    await deps.db.updateTable('articles').set({ status: 'approved' }).where('id', '=', id).execute();
    expect(await found('Zorvex Finance unveils perpetuals exchange on Arbitrum', id)).toBe(true);

    await deps.db.updateTable('articles').set({ headline: 'Quillon DAO votes to cut staking rewards' }).where('id', '=', id).execute();
    expect(await found(h, id)).toBe(false);
    expect(await found('Quillon DAO votes to cut its staking rewards', id)).toBe(true);

    await deps.db.updateTable('articles').set({ status: 'killed' }).where('id', '=', id).execute();
    expect(await found('Quillon DAO votes to cut staking rewards', id)).toBe(false);
    await deps.db.updateTable('articles').set({ status: 'approved' }).where('id', '=', id).execute();
    expect(await found('Quillon DAO votes to cut staking rewards', id)).toBe(true);

    await deps.db
      .updateTable('articles')
      .set({ sponsored: JSON.stringify({ tier: 'express', ad_status: 'sponsored_approved', is_paid: true }) })
      .where('id', '=', id)
      .execute();
    expect(await found('Quillon DAO votes to cut staking rewards', id)).toBe(false);
    await deps.db.updateTable('articles').set({ sponsored: null }).where('id', '=', id).execute();
    expect(await found('Quillon DAO votes to cut staking rewards', id)).toBe(true);

    await deps.db.deleteFrom('articles').where('id', '=', id).execute();
    expect((await check('Quillon DAO votes to cut staking rewards')).matches).toEqual([]);
  });

  it('never indexes sponsored posts, and votes or clicks do not rewrite the index', async () => {
    const id = await article('Pelorin sponsored launch of a yield vault', { sponsored: true });
    expect(await found('Pelorin sponsored launch of a yield vault', id)).toBe(false);
    const plain = await article('Tessaray raises $12M for restaking vaults');
    const before = await sql<{ xmin: string }>`SELECT xmin::text FROM provenance_headlines WHERE article_id = ${plain}`.execute(deps.db);
    await deps.db.updateTable('articles').set({ clicks: 5, vote_count: 3 }).where('id', '=', plain).execute();
    const after = await sql<{ xmin: string }>`SELECT xmin::text FROM provenance_headlines WHERE article_id = ${plain}`.execute(deps.db);
    expect(after.rows).toEqual(before.rows);
    expect(await found('Tessaray secures $12M for restaking vaults', plain)).toBe(true);
  });
});

const runMaintain = () =>
  maintain.run({}, { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer }, { attempt: 1, jobId: 't' });

describe('provenance-headlines-maintain', () => {
  it('drops rows older than the window plus a day and keeps the rest', async () => {
    const old = await article('Ancient Vexmoor bridge exploit recap', { ageMs: 33 * D });
    const edge = await article('Vexmoor bridge exploit, 29 days on', { ageMs: 29 * D });
    const r = await runMaintain();
    expect(r.deleted).toBeGreaterThanOrEqual(1);
    const left = await deps.db.selectFrom('provenance_headlines').select('article_id').where('article_id', 'in', [old, edge]).execute();
    expect(left.map((x) => x.article_id)).toEqual([edge]);
    expect(await found('Vexmoor bridge exploit, 29 days on', edge)).toBe(true);
  });

  it('learns the stock phrases of the window; a check still finds the rewording and nothing that only shares the phrase', async () => {
    const target = await article('Quoxalis acquires Brindle wallet despite regulatory pressure');
    const query = 'Quoxalis buys Brindle wallet despite regulatory pressure';
    const before = (await check(query)).matches.map((m) => m.news_id);
    // 60 headlines that share the stock phrase and nothing else with the query.
    const subjects = ['Arlo', 'Bexo', 'Cyra', 'Dorn', 'Elvi', 'Fyra', 'Gorm', 'Hyla', 'Ivor', 'Jaro', 'Kyle', 'Lumo'];
    const objects = ['bridge', 'stablecoin', 'mainnet', 'oracle', 'rollup'];
    for (const s of subjects) for (const o of objects) await article(`${s}chain sells ${o} despite regulatory pressure`);
    const r = await runMaintain();
    expect(r.commonWords).toBeGreaterThanOrEqual(3);
    const common = (await deps.db.selectFrom('provenance_common_words').select('word').execute()).map((x) => x.word);
    expect(common).toEqual(expect.arrayContaining(['desp', 'pres', 'regu']));
    const after = await check(query);
    expect(after.matches.map((m) => m.news_id)).toEqual(before);
    expect(after.matches.map((m) => m.news_id)).toContain(target);
    // A typo in the distinctive word is still forgiven.
    expect(await found('Quoxalis buys Brindel wallet despite regulatory pressure', target)).toBe(true);
    // The phrase alone finds nothing.
    expect((await check('Zentaro sells bridge despite regulatory pressure')).matches.map((m) => m.news_id)).not.toContain(target);
  });
});
