/**
 * Editorial state machine of an article (spec: States and transitions; scheduled and retracted are
 * ours to define). Pure.
 *
 *   action    from                           to          event (visibility)
 *   approve   submitted, scheduled, killed   approved    news.approved (everyone), previous_status
 *   kill      submitted, scheduled           killed      news.killed (staff)
 *   schedule  submitted, scheduled, killed   scheduled   news.scheduled (staff); re-scheduling moves the time
 *   retract   approved                       retracted   news.retracted (staff)
 *   (job)     scheduled                      approved    news.approved, by jobs/publish-scheduled.ts at its time
 *
 * A kill can be reversed (approve or schedule a killed article: a mistaken kill would otherwise lock
 * the URL out for the 30-day duplicate window). A retraction is final: it is a public statement.
 */
import type { EventType } from '../../platform/events/events.js';

export type ArticleStatus = 'submitted' | 'approved' | 'killed' | 'scheduled' | 'retracted';

/** Statuses anyone may read; the rest need a signed-in caller. */
export const PUBLIC_STATUSES: readonly string[] = ['approved', 'retracted'];
/** Statuses in which an article takes votes, yaps and yap votes. */
export const OPEN_STATUSES: readonly ArticleStatus[] = ['submitted', 'approved', 'scheduled'];

export type EditorialAction = 'approve' | 'kill' | 'schedule' | 'retract';

export const TRANSITIONS: Record<EditorialAction, { from: readonly ArticleStatus[]; to: ArticleStatus; event: EventType }> = {
  approve: { from: ['submitted', 'scheduled', 'killed'], to: 'approved', event: 'news.approved' },
  kill: { from: ['submitted', 'scheduled'], to: 'killed', event: 'news.killed' },
  schedule: { from: ['submitted', 'scheduled', 'killed'], to: 'scheduled', event: 'news.scheduled' },
  retract: { from: ['approved'], to: 'retracted', event: 'news.retracted' },
};

export function canTransition(action: EditorialAction, from: string): boolean {
  return (TRANSITIONS[action].from as readonly string[]).includes(from);
}
