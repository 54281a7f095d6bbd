/**
 * One simulated reward month (scripts/drills/rewards.ts): the honest population of rewards-month.ts
 * and the attackers of rewards-attacks.ts acting at once. Pure and seeded: the same seed gives the
 * same month.
 */
import { randomAttacks } from './rewards-attacks.js';
import { activityLevels, Builder, honestContent, honestUsers, honestVotes, rng, type SimMonth } from './rewards-month.js';

export function simulateMonth(seed: number, start: Date, end: Date, honest = 300): SimMonth {
  const b = new Builder(rng(seed), start.getTime(), end.getTime());
  const users = honestUsers(b, honest);
  const editors = users.filter((u) => u.editor);
  const level = activityLevels(b, users);
  honestContent(b, users, level, editors);
  const attacks = randomAttacks(b, editors);
  attacks.author();
  honestVotes(b, users, level);
  attacks.vote();
  b.m.votes.sort((x, y) => x.at - y.at);
  return b.m;
}
