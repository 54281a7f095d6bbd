/**
 * Kill and retract reasons and the moderation log's vocabulary. Pure.
 *
 * A kill or retraction takes one of DECISION_REASONS and an optional note (staff-only: editors and
 * staff see it, the submitter and the public do not); `duplicate` may name the article it
 * duplicates (duplicate_of). A call without a reason records `unspecified`, which reads the same
 * as an article killed without one.
 */
export const DECISION_REASONS = ['duplicate', 'off_topic', 'low_quality', 'spam', 'misleading', 'other'] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];
/** Recorded when no reason was given. */
export const DEFAULT_DECISION_REASON = 'unspecified';
export const STORED_DECISION_REASONS = [...DECISION_REASONS, DEFAULT_DECISION_REASON] as const;
export type StoredDecisionReason = (typeof STORED_DECISION_REASONS)[number];

export const DECISION_REASON_LABELS: Record<StoredDecisionReason, string> = {
  duplicate: 'Duplicate of another article',
  off_topic: 'Off topic',
  low_quality: 'Low quality',
  spam: 'Spam',
  misleading: 'Misleading',
  other: 'Other',
  unspecified: 'No reason given',
};

export const MAX_DECISION_NOTE = 1000;

/** Actions of the moderation log (rows of article_edits). */
export const MODLOG_ACTIONS = ['approve', 'kill', 'schedule', 'retract', 'edit'] as const;
export type ModlogAction = (typeof MODLOG_ACTIONS)[number];
