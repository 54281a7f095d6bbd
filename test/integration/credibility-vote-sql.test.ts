/**
 * The per-vote update's one statement (src/credibility/vote-queries.ts) decides every vote as the
 * rule in TypeScript does (rules/vote-weight.ts: voteContextFrom, then voteWeight): over generated
 * months of accounts of every age and type, article and yap votes with and without click-throughs,
 * votes on one's own items and on wire items, published flags of every kind (bursts on voted and
 * other items, rings including and excluding the author) and staff decisions (cleared flags, cleared
 * and confirmed accounts and groups), the statement returns and writes the weight and reasons the
 * rule computes from the same facts, gathered here in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateVoteCredibility } from '../../src/credibility/index.js';
import type { Account, Flag, FlagKind, Override, Vote } from '../../src/credibility/rules/model.js';
import { voteContextFrom, voteWeight } from '../../src/credibility/rules/vote-weight.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
const DAY = 86_400_000;

/** mulberry32: a small seeded generator, so a failure names the seed that reproduces it. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const subset = <T>(xs: readonly T[], k: number): T[] => [...xs].sort(() => next() - 0.5).slice(0, k);
  return { next, int, pick, subset };
}

interface World {
  month: string;
  accounts: Map<number, Account>;
  authors: Map<string, number | null>;
  votes: Vote[];
  readers: Set<string>;
  flags: Flag[];
  overrides: Override[];
}

/** One generated month (and a few votes of the month before, which the click counts must leave out). */
async function generate(seed: number, month: string): Promise<World> {
  const r = rng(seed);
  const m0 = Date.parse(`${month}-01T00:00:00Z`);
  const db = deps.db;
  const accounts = new Map<number, Account>();
  for (let i = 0; i < 24; i++) {
    // Ages around the month: created long before, in its first week or day, or after some of its votes.
    const createdAt = m0 + r.pick([-200 * DAY, -20 * DAY, 2 * DAY, 9 * DAY, 15 * DAY]) + r.int(3 * DAY);
    const type = r.pick<Account['type']>(['human', 'human', 'cyborg', 'bot']);
    const u = await db
      .insertInto('users')
      .values({ wallet_address: `0x${(seed * 1000 + i).toString(16).padStart(40, '0')}`, account_type: type, created_at: new Date(createdAt) })
      .returning('id')
      .executeTakeFirstOrThrow();
    accounts.set(u.id, { id: u.id, createdAt, type, fingerprints: [] });
  }
  const ids = [...accounts.keys()];
  const authors = new Map<string, number | null>();
  const articles: number[] = [];
  for (let i = 0; i < 24; i++) {
    const by = r.next() < 0.15 ? null : r.pick(ids);
    const a = await db
      .insertInto('articles')
      .values({
        slug: `s${seed}-${i}`,
        headline: `h${i}`,
        url: `https://v${seed}.example/${i}`,
        normalized_url: `https://v${seed}.example/${i}`,
        status: 'approved',
        submitted_by: by,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    articles.push(a.id);
    authors.set(`article_vote:${a.id}`, by);
  }
  const yaps: number[] = [];
  for (let i = 0; i < 10; i++) {
    const by = r.pick(ids);
    const y = await db
      .insertInto('yaps')
      .values({ article_id: r.pick(articles), user_id: by, text: `y${i}`, base_score: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    yaps.push(y.id);
    authors.set(`yap_vote:${y.id}`, by);
  }
  const votes: Vote[] = [];
  const readers = new Set<string>();
  for (const user of ids) {
    // A third of the voters vote on nearly every article and open few of them (the no-click rule's case).
    const heavy = r.next() < 0.35;
    for (const article of r.subset(articles, heavy ? 22 + r.int(3) : 3 + r.int(8))) {
      const before = r.next() < 0.08;
      const at = before ? m0 - 1 - r.int(5 * DAY) : m0 + r.int(28 * DAY);
      const clicked = r.next() < (heavy ? 0.05 : 0.5);
      const value = r.next() < 0.8 ? 1 : -1;
      await db
        .insertInto('votes')
        .values({ article_id: article, user_id: user, weight: value, created_at: new Date(at) })
        .execute();
      if (clicked) {
        await db.insertInto('article_readers').values({ article_id: article, user_id: user }).execute();
        readers.add(`${article}:${user}`);
      }
      votes.push({ kind: 'article_vote', targetId: article, userId: user, value, at, authorId: authors.get(`article_vote:${article}`)!, clicked });
    }
    for (const yap of r.subset(yaps, r.int(4))) {
      const at = m0 + r.int(28 * DAY);
      const value = r.next() < 0.8 ? 1 : -1;
      await db
        .insertInto('yap_votes')
        .values({ yap_id: yap, user_id: user, weight: value, created_at: new Date(at) })
        .execute();
      votes.push({ kind: 'yap_vote', targetId: yap, userId: user, value, at, authorId: authors.get(`yap_vote:${yap}`)!, clicked: false });
    }
  }
  const flags: Flag[] = [];
  const seen = new Set<string>();
  const kinds: FlagKind[] = ['ring', 'reciprocal_pair', 'co_voting', 'cohort', 'burst', 'indiscriminate'];
  for (let i = 0; i < 14; i++) {
    const kind = r.pick(kinds);
    const members = r.subset(ids, kind === 'reciprocal_pair' ? 2 : 2 + r.int(5)).sort((a, b) => a - b);
    const key = `${kind}:${members.join(',')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const target = kind === 'burst' ? (r.next() < 0.7 ? `article_vote:${r.pick(articles)}` : `yap_vote:${r.pick(yaps)}`) : undefined;
    const evidence: Record<string, number | string> = target ? { target, votes: 5 } : { votes: 40 };
    await db
      .insertInto('credibility_flags')
      .values({ month, kind, members, evidence: JSON.stringify(evidence) })
      .execute();
    flags.push({ kind, members, evidence });
  }
  // Staff decisions: some flags cleared, one confirmed, accounts cleared and confirmed.
  const overrides: Override[] = [];
  for (const f of r.subset(flags, 4)) overrides.push({ kind: f.kind, members: f.members, decision: r.next() < 0.75 ? 'cleared' : 'confirmed' });
  for (const user of r.subset(ids, 4)) overrides.push({ kind: 'account' as FlagKind, members: [user], decision: r.next() < 0.5 ? 'cleared' : 'confirmed' });
  for (const o of overrides) await db.insertInto('credibility_overrides').values({ month, kind: o.kind, members: o.members, decision: o.decision }).execute();
  return { month, accounts, authors, votes, readers, flags, overrides };
}

const monthOf = (at: number) => new Date(at).toISOString().slice(0, 7);

/** What the rule decides for a vote, from the world's facts (the published flags and decisions of the vote's month). */
function expected(w: World, v: Vote): { weight: number | null; reasons: string[] } {
  if (v.authorId === v.userId) return { weight: null, reasons: [] };
  const inMonth = monthOf(v.at) === w.month;
  const names = (x: { members: number[] }) => x.members.includes(v.userId);
  const mine = w.votes.filter((o) => o.kind === 'article_vote' && o.userId === v.userId && monthOf(o.at) === monthOf(v.at) && o.authorId !== v.userId);
  const countClicks = v.kind === 'article_vote' && !v.clicked;
  const facts = {
    account: w.accounts.get(v.userId),
    flags: inMonth ? w.flags.filter(names) : [],
    overrides: inMonth ? w.overrides.filter(names) : [],
    articleVotes: countClicks ? mine.length : 0,
    clicked: countClicks ? mine.filter((o) => w.readers.has(`${o.targetId}:${o.userId}`)).length : 0,
  };
  const ctx = voteContextFrom(v, facts);
  if (!ctx) return { weight: 1, reasons: [] };
  const { weight, reasons } = voteWeight(v, ctx);
  return { weight, reasons };
}

beforeAll(async () => {
  deps = await createTestDeps();
});

afterAll(async () => {
  await deps.close();
});

describe('the per-vote statement and the weight rule', () => {
  it.each([
    [1, '2026-03'],
    [2, '2026-04'],
    [3, '2026-05'],
  ])('agree on every vote of a generated month (seed %i)', async (seed, month) => {
    const w = await generate(seed, month);
    const reasons = new Set<string>();
    let discounted = 0;
    for (const v of w.votes) {
      const want = expected(w, v);
      const got = await updateVoteCredibility(deps.db, v.kind, v.targetId, v.userId);
      expect(got, `seed ${seed}, ${v.kind} ${v.targetId} by ${v.userId}`).toEqual(want);
      const row = await deps.db
        .selectFrom('credibility_weights')
        .select(['weight', 'reasons', 'month'])
        .where('kind', '=', v.kind)
        .where('target_id', '=', v.targetId)
        .where('user_id', '=', v.userId)
        .executeTakeFirst();
      if (want.weight !== null && want.weight < 1) {
        // A real column: stored to single precision.
        expect(row).toEqual({ weight: expect.closeTo(want.weight, 6), reasons: want.reasons, month: monthOf(v.at) });
        discounted += 1;
      } else expect(row).toBeUndefined();
      for (const r of want.reasons) reasons.add(r);
    }
    // The generated month reaches every part of the rule, so agreeing means something.
    expect(discounted).toBeGreaterThan(w.votes.length / 10);
    expect(reasons.size, [...reasons].join(' | ')).toBeGreaterThanOrEqual(6);
  });

  it('deletes the row of a vote that no longer exists and answers weight null', async () => {
    const w = await generate(4, '2026-06');
    const v = w.votes.find((x) => expected(w, x).weight !== null && expected(w, x).weight! < 1)!;
    await updateVoteCredibility(deps.db, v.kind, v.targetId, v.userId);
    const table = v.kind === 'article_vote' ? 'votes' : 'yap_votes';
    const column = v.kind === 'article_vote' ? 'article_id' : 'yap_id';
    await deps.db
      .deleteFrom(table)
      .where(column as never, '=', v.targetId as never)
      .where('user_id', '=', v.userId)
      .execute();
    expect(await updateVoteCredibility(deps.db, v.kind, v.targetId, v.userId)).toEqual({ weight: null, reasons: [] });
    const left = await deps.db
      .selectFrom('credibility_weights')
      .select('weight')
      .where('kind', '=', v.kind)
      .where('target_id', '=', v.targetId)
      .where('user_id', '=', v.userId)
      .execute();
    expect(left).toEqual([]);
  });
});
