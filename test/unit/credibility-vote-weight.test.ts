/**
 * The per-vote credibility rule from published flags and staff decisions (rules/vote-weight.ts):
 * the same weight the full recompute gives a vote when it sees the same flags.
 */
import { describe, expect, it } from 'vitest';
import type { Account, Flag, Override, Vote } from '../../src/credibility/rules/model.js';
import { computeCredibility, REASONS } from '../../src/credibility/rules/weights.js';
import { isNoClickVoter, voteContextFrom, voteWeight } from '../../src/credibility/rules/vote-weight.js';

const DAY = 86_400_000;
const AT = Date.UTC(2025, 4, 20);
const account = (id: number, ageDays: number, type: Account['type'] = 'human'): Account => ({ id, createdAt: AT - ageDays * DAY, type, fingerprints: [] });
const vote = (over: Partial<Vote> = {}): Vote => ({ kind: 'article_vote', targetId: 7, userId: 1, value: 1, at: AT, authorId: 2, clicked: true, ...over });
const facts = (over: { account?: Account; flags?: Flag[]; overrides?: Override[]; articleVotes?: number; clicked?: number } = {}) => ({
  account: account(1, 90),
  flags: [],
  overrides: [],
  articleVotes: 0,
  clicked: 0,
  ...over,
});
const weigh = (v: Vote, f: ReturnType<typeof facts>) => {
  const ctx = voteContextFrom(v, f);
  return ctx ? voteWeight(v, ctx) : null;
};

describe('per-vote credibility rule', () => {
  it('gives an old, unflagged account full weight and a day-old one half, with its reason', () => {
    expect(weigh(vote(), facts())).toMatchObject({ weight: 1, reasons: [] });
    expect(weigh(vote(), facts({ account: account(1, 0.5) }))).toMatchObject({ weight: 0.5, reasons: [REASONS.newAccount] });
    expect(weigh(vote(), facts({ account: account(1, 90, 'bot') }))?.weight).toBe(0);
  });

  it('applies the flags that name the voter, a ring only on votes for its own members, a burst only on its item', () => {
    const flags: Flag[] = [
      { kind: 'indiscriminate', members: [1], evidence: {} },
      { kind: 'ring', members: [1, 3], evidence: {} },
      { kind: 'burst', members: [1, 4], evidence: { target: 'article_vote:9' } },
      { kind: 'cohort', members: [5, 6], evidence: {} },
    ];
    expect(weigh(vote(), facts({ flags }))).toMatchObject({ weight: 0.2, reasons: [REASONS.indiscriminate] });
    expect(weigh(vote({ authorId: 3 }), facts({ flags }))?.weight).toBe(0);
    expect(weigh(vote({ targetId: 9 }), facts({ flags }))?.reasons).toEqual([REASONS.burst, REASONS.indiscriminate]);
  });

  it('skips cleared flags, zeroes confirmed accounts and gives a cleared account full weight', () => {
    const flags: Flag[] = [{ kind: 'indiscriminate', members: [1], evidence: {} }];
    const cleared: Override = { kind: 'indiscriminate', members: [1], decision: 'cleared' };
    expect(weigh(vote(), facts({ flags, overrides: [cleared] }))).toBeNull();
    // A decision on the account itself (stored with kind 'account', read as overridesOf reads it).
    const confirmed: Override = { kind: 'account' as Override['kind'], members: [1], decision: 'confirmed' };
    expect(weigh(vote(), facts({ flags, overrides: [confirmed, cleared] }))).toMatchObject({ weight: 0, reasons: [REASONS.confirmed] });
  });

  it('halves an unopened article vote of a voter who rarely opens what it votes on, never a yap vote', () => {
    expect(isNoClickVoter(20, 1)).toBe(true);
    expect(isNoClickVoter(19, 0)).toBe(false);
    expect(isNoClickVoter(20, 2)).toBe(false);
    expect(weigh(vote({ clicked: false }), facts({ articleVotes: 30, clicked: 1 }))).toMatchObject({ weight: 0.5, reasons: [REASONS.noClick] });
    expect(weigh(vote({ kind: 'yap_vote', clicked: false }), facts({ articleVotes: 30, clicked: 1 }))?.weight).toBe(1);
  });

  it('agrees with the full recompute on a vote when given the flags it detected', () => {
    const voters = Array.from({ length: 60 }, (_, i) => account(100 + i, 90));
    const accounts = new Map(voters.map((a) => [a.id, a]));
    accounts.set(1, account(1, 3));
    // Voter 1 votes on 60 items, without opening them; the others on one item each.
    const votes: Vote[] = [
      ...Array.from({ length: 60 }, (_, i) => vote({ targetId: 1000 + i, clicked: false, at: AT + i * 60_000 })),
      ...voters.map((a, i) => vote({ userId: a.id, targetId: 1000 + i, at: AT + i * 60_000 })),
    ];
    const full = computeCredibility({ accounts, votes, authored: [], overrides: [] });
    const mine = full.weights.find((w) => w.userId === 1 && w.targetId === 1010)!;
    const flags = full.flags.filter((f) => f.members.includes(1));
    expect(flags.map((f) => f.kind)).toContain('indiscriminate');
    const one = weigh(votes[10], facts({ account: accounts.get(1), flags, articleVotes: 60, clicked: 0 }))!;
    expect(one.weight).toBeCloseTo(mine.weight, 6);
    expect(one.reasons).toEqual(mine.reasons);
  });
});
