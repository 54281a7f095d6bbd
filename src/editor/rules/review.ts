/**
 * What an editor's transition may do to which article, and what it records. Pure.
 * The state machine itself (which action moves which status) is src/articles/rules/state.ts.
 */
import type { Changes, EditorialAction } from '../../articles/index.js';

/**
 * A paid ad (origin x402_ad) is not approved or scheduled by the editorial workflow: its review
 * goes through the sponsored feature, which checks the payment and publishes news.sponsored.
 * Kill and retract are editorial and apply to it like to any article.
 */
export function needsSponsoredReview(action: EditorialAction, origin: string): boolean {
  return (action === 'approve' || action === 'schedule') && origin === 'x402_ad';
}

/** Kill and retract record why (reason, note, duplicate_of); approve and schedule, reversing a kill, clear it. */
export function recordsDecision(action: EditorialAction): boolean {
  return action === 'kill' || action === 'retract';
}

/** The edit-history record of a transition: the status and the scheduled time, when they change. */
export function transitionChanges(from: { status: string; scheduled_for: Date | null }, to: string, scheduledFor: Date | null): Changes {
  const changes: Changes = {};
  if (from.status !== to) changes.status = { from: from.status, to };
  const fromTime = from.scheduled_for ? from.scheduled_for.toISOString() : null;
  const toTime = scheduledFor ? scheduledFor.toISOString() : null;
  if (fromTime !== toTime) changes.scheduled_for = { from: fromTime, to: toTime };
  return changes;
}
