/** The readable reasons attached to every weight below 1 (users see them counted, never the thresholds). */
export const REASONS = {
  bot: 'votes from accounts declared as bots earn no curation credit',
  newAccount: "cast in the account's first day",
  youngAccount: "cast in the account's first week",
  cohort: 'the account is one of several created together from the same place',
  noClick: 'cast without opening the article, which this account rarely does',
  indiscriminate: 'the account voted on nearly everything this month',
  coVoting: 'the account voted in lockstep with other accounts; together they count as one voter',
  ring: 'a vote inside a group of accounts that mostly vote for each other',
  burst: 'part of a burst of votes from new accounts on one item',
  confirmed: 'staff confirmed the account as part of a manipulating group',
  groupAuthor: 'the author belongs to a group of accounts flagged for voting together',
  ownGroupReview: "approved by a member of the author's own flagged group",
} as const;
