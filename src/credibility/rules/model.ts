/**
 * The credibility detector's input and output shapes (pure data). One month of activity: the accounts
 * that acted, every vote, yap and submission, and the staff decisions on earlier flags.
 */
type ItemKind = 'article_vote' | 'yap_vote' | 'yap' | 'submission';
export type FlagKind = 'ring' | 'reciprocal_pair' | 'co_voting' | 'cohort' | 'burst' | 'indiscriminate';

export interface Account {
  id: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  type: 'human' | 'cyborg' | 'bot';
  /** Hashed sign-in fingerprints (network address, user agent), never raw values. */
  fingerprints: string[];
}

export interface Vote {
  kind: 'article_vote' | 'yap_vote';
  targetId: number;
  userId: number;
  value: 1 | -1;
  at: number;
  /** The author of the voted article (submitter) or yap; null for wire items. */
  authorId: number | null;
  /** The voter opened the article through its click-through (article votes only). */
  clicked: boolean;
}

export interface Authored {
  kind: 'yap' | 'submission';
  targetId: number;
  userId: number;
  at: number;
  /** Submissions: the editor who moved it out of `submitted`, when any. */
  reviewedBy?: number | null;
}

export interface Override {
  kind: FlagKind;
  members: number[];
  decision: 'confirmed' | 'cleared';
}

export interface MonthActivity {
  accounts: Map<number, Account>;
  votes: Vote[];
  authored: Authored[];
  overrides: Override[];
}

export interface Flag {
  kind: FlagKind;
  /** Sorted account ids. */
  members: number[];
  evidence: Record<string, number | string>;
}

export interface Weighted {
  kind: ItemKind;
  targetId: number;
  userId: number;
  weight: number;
  reasons: string[];
}

export const flagKey = (f: { kind: FlagKind; members: number[] }) => `${f.kind}:${f.members.join(',')}`;
