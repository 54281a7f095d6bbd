/**
 * The group rules against the failure modes a whole honest population shows: a community whose
 * members vote mostly for each other's content (every member of it, so every vote is "inside") is
 * not a ring; a newcomer voting on an item at the same time as a farm is not part of the farm's burst.
 */
import { describe, expect, it } from 'vitest';
import type { Account, Flag, Vote } from '../../src/credibility/rules/model.js';
import { detectBursts } from '../../src/credibility/rules/bursts.js';
import { detectRings } from '../../src/credibility/rules/voting-groups.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const acct = (id: number, createdAt = T0 - 400 * DAY + id * DAY): Account => ({ id, createdAt, type: 'human', fingerprints: [`ip:${id}`] });
function mix(...xs: number[]): number {
  let h = 2166136261;
  for (const x of xs) h = Math.imul(h ^ x, 16777619) ^ (h >>> 13);
  return (h >>> 0) % 1_000_003;
}
const up = (userId: number, targetId: number, authorId: number, at: number): Vote => ({ kind: 'yap_vote', targetId, userId, value: 1, at, authorId, clicked: true });

describe('rings', () => {
  it('a closed community of 30 accounts upvoting each other evenly is not a ring; a small group inside it voting for itself is', () => {
    const votes: Vote[] = [];
    for (let u = 1; u <= 30; u++)
      for (let a = 1; a <= 30; a++) if (a !== u && mix(u, a) % 3 === 0) for (let i = 0; i < 3; i++) votes.push(up(u, a * 100 + i, a, T0 + u * 1000 + a * 10 + i));
    expect(detectRings(votes)).toEqual([]);
    // Readers outside the community vote on its content too.
    for (let r = 40; r < 60; r++) for (let a = 1; a <= 30; a += 3) votes.push(up(r, a * 100, a, T0 + r * 1000 + a));
    expect(detectRings(votes)).toEqual([]);
    for (const u of [31, 32, 33, 34]) for (const a of [31, 32, 33, 34]) if (a !== u) for (let i = 0; i < 8; i++) votes.push(up(u, a * 100 + i, a, T0 + DAY + u * 1000 + i));
    for (const u of [31, 32, 33, 34]) votes.push(up(u, 100, 1, T0 + 2 * DAY + u));
    const rings = detectRings(votes);
    expect(rings.map((f) => [f.kind, f.members])).toEqual([['ring', [31, 32, 33, 34]]]);
  });
});

describe('bursts', () => {
  it("a newcomer voting within the farm's window is not counted with the farm", () => {
    const farm = [501, 502, 503, 504, 505, 506].map((id, i) => acct(id, T0 + 2 * DAY + i * 10_000));
    const cohort: Flag = { kind: 'cohort', members: farm.map((a) => a.id), evidence: {} };
    const newcomer = acct(900, T0 + 9 * DAY);
    const at = T0 + 10 * DAY;
    const votes = [...farm.map((a, i) => up(a.id, 7, 1, at + i * 60_000)), up(900, 7, 1, at + 90_000)];
    const accounts = new Map([...farm, newcomer].map((a) => [a.id, a]));
    const { flags, burstVotes } = detectBursts(votes, accounts, [cohort]);
    expect(flags.map((f) => f.members)).toEqual([[501, 502, 503, 504, 505, 506]]);
    expect(burstVotes.has('yap_vote:7:900')).toBe(false);
  });

  it('the same farm bursting on several items is one flag', () => {
    const farm = [501, 502, 503, 504, 505].map((id, i) => acct(id, T0 + 9 * DAY + i * 10_000));
    const accounts = new Map(farm.map((a) => [a.id, a]));
    const votes = [7, 8, 9].flatMap((t) => farm.map((a, i) => up(a.id, t, 1, T0 + 3 * DAY + t * DAY + i * 60_000)));
    const { flags } = detectBursts(votes, accounts, []);
    expect(flags).toEqual([{ kind: 'burst', members: [501, 502, 503, 504, 505], evidence: { target: 'yap_vote:7', votes: 5, items: 3 } }]);
  });
});
