import { describe, expect, it } from 'vitest';
import type { Account, Authored, MonthActivity, Override, Vote } from '../../src/credibility/rules/model.js';
import { computeCredibility, REASONS } from '../../src/credibility/rules/weights.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const OLD = T0 - 365 * DAY;

function acct(id: number, createdAt = OLD - id * 3_600_000, extra: Partial<Account> = {}): Account {
  return { id, createdAt, type: 'human', fingerprints: [`ip:${id}`], ...extra };
}
function vote(userId: number, targetId: number, authorId: number | null, at: number, extra: Partial<Vote> = {}): Vote {
  return { kind: 'yap_vote', targetId, userId, value: 1, at, authorId, clicked: true, ...extra };
}
function month(accounts: Account[], votes: Vote[], authored: Authored[] = [], overrides: Override[] = []): MonthActivity {
  return { accounts: new Map(accounts.map((a) => [a.id, a])), votes, authored, overrides };
}
/** Honest background: 40 authors each with 10 yaps (target id author*100+i), 30 voters voting on a random-looking spread. */
function honest(): { accounts: Account[]; votes: Vote[]; authored: Authored[] } {
  const accounts: Account[] = [];
  const votes: Vote[] = [];
  const authored: Authored[] = [];
  for (let a = 1; a <= 40; a++) {
    accounts.push(acct(a));
    for (let i = 0; i < 10; i++) authored.push({ kind: 'yap', targetId: a * 100 + i, userId: a, at: T0 + a * 1000 });
  }
  for (let u = 1; u <= 30; u++)
    for (let a = 1; a <= 40; a++) for (let i = 0; i < 10; i++) if (a !== u && mix(u, a, i) % 9 === 0) votes.push(vote(u, a * 100 + i, a, T0 + (u * 97 + a * 31 + i) * 60_000));
  return { accounts, votes, authored };
}
function mix(...xs: number[]): number {
  let h = 2166136261;
  for (const x of xs) h = Math.imul(h ^ x, 16777619) ^ (h >>> 13);
  return (h >>> 0) % 1_000_003;
}
const weightOf = (r: ReturnType<typeof computeCredibility>, userId: number) => r.weights.filter((w) => w.userId === userId);

describe('credibility rules', () => {
  it('an honest population is neither flagged nor discounted', () => {
    const h = honest();
    const r = computeCredibility(month(h.accounts, h.votes, h.authored));
    expect(r.flags).toEqual([]);
    expect(r.weights).toEqual([]);
  });

  it('an honest power user voting on a third of everything, often for the same prolific authors, is not flagged', () => {
    const h = honest();
    const power = acct(99);
    const votes = [...h.votes];
    for (let a = 1; a <= 40; a++) for (let i = 0; i < 10; i++) if ((a + i) % 3 === 0) votes.push(vote(99, a * 100 + i, a, T0 + (a * 10 + i) * 60_000));
    const r = computeCredibility(month([...h.accounts, power], votes, h.authored));
    expect(r.flags.filter((f) => f.members.includes(99))).toEqual([]);
    expect(weightOf(r, 99)).toEqual([]);
  });

  it('account age: votes in the first day and the first week count less; activity before the recorded creation is not discounted', () => {
    const created = T0 + 10 * DAY;
    const r = computeCredibility(
      month([acct(1), acct(2, created)], [vote(2, 100, 1, created + 3_600_000), vote(2, 101, 1, created + 3 * DAY), vote(2, 102, 1, created + 8 * DAY), vote(2, 103, 1, T0)]),
    );
    expect(weightOf(r, 2).map((w) => [w.targetId, w.weight, w.reasons])).toEqual([
      [100, 0.5, [REASONS.newAccount]],
      [101, 0.8, [REASONS.youngAccount]],
    ]);
  });

  it('bot accounts earn no curation credit', () => {
    const r = computeCredibility(month([acct(1), acct(2, OLD, { type: 'bot' })], [vote(2, 100, 1, T0)]));
    expect(weightOf(r, 2)[0]).toMatchObject({ weight: 0, reasons: [REASONS.bot] });
  });

  it('accounts created together from one address form a cohort; the same number spread over days do not', () => {
    const burst = [10, 11, 12, 13, 14].map((id, i) => acct(id, T0 - 30 * DAY + i * 60_000, { fingerprints: ['ip:shared'] }));
    const spread = [20, 21, 22, 23, 24].map((id, i) => acct(id, T0 - 30 * DAY + i * 2 * DAY, { fingerprints: ['ip:office'] }));
    const votes = [...burst, ...spread].map((a, i) => vote(a.id, 500 + i, 1, T0 + i * DAY));
    const r = computeCredibility(month([acct(1), ...burst, ...spread], votes));
    expect(r.flags).toEqual([{ kind: 'cohort', members: [10, 11, 12, 13, 14], evidence: { accounts: 5, created_within_s: 240 } }]);
    expect(weightOf(r, 10)[0]).toMatchObject({ weight: 0.25, reasons: [REASONS.cohort] });
    expect(weightOf(r, 20)).toEqual([]);
  });

  it('votes without a click-through count less only for an account that almost never opens what it votes on', () => {
    const many = (u: number, clicked: (i: number) => boolean) =>
      Array.from({ length: 30 }, (_, i) => vote(u, u * 1000 + i, 1, T0 + i * DAY, { kind: 'article_vote', clicked: clicked(i) }));
    const r = computeCredibility(month([acct(1), acct(2), acct(3)], [...many(2, () => false), ...many(3, (i) => i % 2 === 0)]));
    expect(weightOf(r, 2)).toHaveLength(30);
    expect(weightOf(r, 2)[0]).toMatchObject({ weight: 0.5, reasons: [REASONS.noClick] });
    expect(weightOf(r, 3)).toEqual([]);
  });

  it('an indiscriminate voter (nearly everything) and voters moving in lockstep are discounted; the lockstep group counts as one', () => {
    const h = honest();
    const bots = [201, 202, 203].map((id) => acct(id));
    const votes = [...h.votes];
    for (const b of bots) for (const y of h.authored) votes.push(vote(b.id, y.targetId, y.userId, y.at + 60_000 + b.id));
    const r = computeCredibility(month([...h.accounts, ...bots], votes, h.authored));
    expect(r.flags.find((f) => f.kind === 'co_voting')?.members).toEqual([201, 202, 203]);
    expect(r.flags.filter((f) => f.kind === 'indiscriminate').map((f) => f.members[0])).toEqual([201, 202, 203]);
    const w = weightOf(r, 201)[0];
    expect(w.reasons).toEqual([REASONS.coVoting, REASONS.indiscriminate].sort((a, b) => (a === REASONS.coVoting ? -1 : b === REASONS.coVoting ? 1 : 0)));
    expect(w.weight).toBeCloseTo((1 / 3) * 0.2, 6);
    expect(r.flags.some((f) => f.members.some((m) => m <= 40))).toBe(false);
  });

  it('a ring voting for each other is zeroed inside the ring, its yaps discounted; a reciprocating pair is caught too', () => {
    const h = honest();
    const ring = [301, 302, 303, 304].map((id) => acct(id));
    const pair = [401, 402].map((id) => acct(id));
    const votes = [...h.votes];
    const authored = [...h.authored];
    for (const m of [...ring, ...pair]) for (let i = 0; i < 6; i++) authored.push({ kind: 'yap', targetId: m.id * 100 + i, userId: m.id, at: T0 + i * DAY });
    for (const a of ring) for (const b of ring) if (a !== b) for (let i = 0; i < 6; i++) votes.push(vote(a.id, b.id * 100 + i, b.id, T0 + i * DAY + a.id));
    for (const [a, b] of [
      [401, 402],
      [402, 401],
    ])
      for (let i = 0; i < 6; i++) votes.push(vote(a, b * 100 + i, b, T0 + i * DAY));
    const r = computeCredibility(month([...h.accounts, ...ring, ...pair], votes, authored));
    expect(r.flags.find((f) => f.kind === 'ring')?.members).toEqual([301, 302, 303, 304]);
    expect(r.flags.find((f) => f.kind === 'reciprocal_pair')?.members).toEqual([401, 402]);
    expect(weightOf(r, 301).find((w) => w.kind === 'yap_vote')).toMatchObject({ weight: 0, reasons: [REASONS.ring] });
    expect(weightOf(r, 301).find((w) => w.kind === 'yap')).toMatchObject({ weight: 0.25, reasons: [REASONS.groupAuthor] });
    expect(r.flags.some((f) => f.members.some((m) => m <= 40))).toBe(false);
  });

  it('a burst of new accounts on one target is zeroed; old accounts voting fast on a hot item are not', () => {
    const fresh = [501, 502, 503, 504, 505, 506].map((id, i) => acct(id, T0 + DAY + i * 3 * 3_600_000, { fingerprints: [`ip:${id}`] }));
    const old = [601, 602, 603, 604, 605, 606].map((id) => acct(id));
    const at = T0 + 5 * DAY;
    const votes = [...fresh.map((a, i) => vote(a.id, 900, 1, at + i * 60_000)), ...old.map((a, i) => vote(a.id, 901, 1, at + i * 60_000))];
    const r = computeCredibility(month([acct(1), ...fresh, ...old], votes));
    expect(r.flags).toEqual([{ kind: 'burst', members: [501, 502, 503, 504, 505, 506], evidence: { target: 'yap_vote:900', votes: 6 } }]);
    expect(weightOf(r, 501)[0]).toMatchObject({ weight: 0, reasons: [REASONS.youngAccount, REASONS.burst] });
    expect(weightOf(r, 601)).toEqual([]);
  });

  it('staff overrides: a cleared flag stops discounting, a confirmed group loses all credit; a submission approved inside its own group is zeroed', () => {
    const cohort = [10, 11, 12, 13].map((id, i) => acct(id, T0 - 30 * DAY + i * 60_000, { fingerprints: ['ip:same'] }));
    const votes = cohort.map((a) => vote(a.id, 700, 1, T0 + DAY));
    const sub: Authored = { kind: 'submission', targetId: 800, userId: 10, at: T0 + DAY, reviewedBy: 11 };
    const base = computeCredibility(month(cohort, votes, [sub]));
    expect(base.weights.find((w) => w.kind === 'submission')).toMatchObject({ weight: 0, reasons: [REASONS.groupAuthor, REASONS.ownGroupReview] });
    const cleared = computeCredibility(month(cohort, votes, [sub], [{ kind: 'cohort', members: [10, 11, 12, 13], decision: 'cleared' }]));
    expect(cleared.weights).toEqual([]);
    const confirmed = computeCredibility(month(cohort, votes, [sub], [{ kind: 'cohort', members: [10, 11, 12, 13], decision: 'confirmed' }]));
    expect(confirmed.weights.filter((w) => w.kind === 'yap_vote').every((w) => w.weight === 0 && w.reasons[0] === REASONS.confirmed)).toBe(true);
  });

  it('is deterministic: the same activity, read in any order, gives the same flags and weights in the same order', () => {
    const h = honest();
    const bots = [201, 202, 203].map((id) => acct(id));
    // A cluster of new accounts bursting on two items with different vote counts: the flag's evidence names one of them.
    const fresh = [501, 502, 503, 504, 505, 506, 507].map((id, i) => acct(id, T0 + DAY + i * 3_600_000));
    const burst = (target: number, n: number) => fresh.slice(0, n).map((f, i) => vote(f.id, target, 1, T0 + 5 * DAY + i * 60_000));
    const votes = [...h.votes, ...bots.flatMap((b) => h.authored.map((y) => vote(b.id, y.targetId, y.userId, y.at + 1))), ...burst(9900, 6), ...burst(9901, 7)];
    const a = computeCredibility(month([...h.accounts, ...bots, ...fresh], votes, h.authored));
    expect(a.flags.filter((f) => f.kind === 'burst')).toHaveLength(1);
    const b = computeCredibility(month([...fresh, ...bots, ...h.accounts], [...votes].reverse(), h.authored));
    expect(b).toEqual(a);
    const shuffled = votes
      .map((v, i) => ({ v, k: mix(i, 7) }))
      .sort((x, y) => x.k - y.k)
      .map((x) => x.v);
    expect(computeCredibility(month([...bots, ...fresh, ...h.accounts], shuffled, [...h.authored].reverse()))).toEqual(a);
  });
});
