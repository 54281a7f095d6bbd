/**
 * The detector's thresholds. Internal: users are told what kinds of activity count less, never these
 * numbers (docs/rewards.md); staff read them in docs/credibility.md.
 */
const DAY_MS = 86_400_000;
export const T = {
  /** Account age at the time of the activity. */
  newAccountMs: DAY_MS,
  youngAccountMs: 7 * DAY_MS,
  newAccountFactor: 0.5,
  youngAccountFactor: 0.8,
  /** Accounts created together: a shared fingerprint and creation within the window, at least this many. */
  cohortWindowMs: 10 * 60_000,
  cohortMinSize: 4,
  /** Without a shared fingerprint, this many accounts created within the tight window. */
  cohortTightWindowMs: 60_000,
  cohortTightMinSize: 8,
  cohortFactor: 0.25,
  /** Click-through: voters with at least this many article votes, who opened under this share of them. */
  noClickMinVotes: 20,
  noClickMaxShare: 0.1,
  noClickFactor: 0.5,
  /** Indiscriminate: votes on at least this share of the month's voted items, with at least this many votes. */
  indiscriminateShare: 0.6,
  indiscriminateMinVotes: 50,
  indiscriminateFactor: 0.2,
  /** Co-voting: pairs whose (item, direction) sets overlap at least this much (Jaccard), both with this many votes. */
  coVoteJaccard: 0.7,
  coVoteMinVotes: 20,
  /** Items with more voters than this are left out of the pair count (popular items say nothing about a pair). */
  coVoteMaxVoters: 400,
  /** Rings: each member sends at least this share of its upvotes on others' content inside the group. */
  ringInsideShare: 0.5,
  ringMinEdgeVotes: 3,
  ringMinVotes: 5,
  /** ... and at least this many times the share of upvotes from outside the group that go to the group's content. */
  ringMinLift: 3,
  /** Bursts: this many votes from new or cohort accounts on one item within the window, and at least half of the window's votes. */
  burstWindowMs: 30 * 60_000,
  burstMinVotes: 5,
  /** Fresh accounts outside a cohort count together in a burst when created at most this far apart (chained). */
  burstCreatedGapMs: DAY_MS,
  /** Authored content of a flagged group's member. */
  flaggedAuthorFactor: 0.25,
} as const;
