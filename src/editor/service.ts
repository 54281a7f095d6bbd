/**
 * The editorial use cases: approve, kill, schedule, retract and edit an article, and publish a
 * scheduled one when its time comes. Each opens its transaction, applies the editorial policy
 * (the state machine of src/articles/rules/state.ts, the paid-ad refusal and the decision record of
 * ./rules/review.ts), writes the article and its edit-history row, and records the event in the same
 * transaction (the relay publishes it, retires the feed cache and, for schedule, enqueues the
 * delayed publish-scheduled job). The editorial routes and the publish jobs call these functions.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, newsEvent, recordEvents } from '../platform/events/log.js';
import {
  articleEvent,
  articleExists,
  articleNotFound,
  canTransition,
  type Changes,
  type DecisionReason,
  DEFAULT_DECISION_REASON,
  diffEdit,
  dueScheduledIds,
  type EditableFields,
  editColumns,
  type EditorialAction,
  insertArticleEdit,
  lockForEdit,
  lockForReview,
  publishScheduledRow,
  recomputeHotScores,
  type StoredDecisionReason,
  TRANSITIONS,
  writeEdit,
  writeReview,
} from '../articles/index.js';
import { needsSponsoredReview, recordsDecision, transitionChanges } from './rules/review.js';

/** Why an article is killed or retracted (src/articles/rules/moderation.ts). */
export interface DecisionInput {
  reason?: DecisionReason;
  note?: string | null;
  duplicateOf?: number | null;
}

interface TransitionInput {
  id: number;
  action: EditorialAction;
  editorId: number;
  scheduledFor?: Date;
  decision?: DecisionInput;
}

type TransitionOutcome =
  | { ok: true; article: Awaited<ReturnType<typeof writeReview>>; previousStatus: string; changes: Changes }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'illegal'; currentStatus: string }
  | { ok: false; reason: 'duplicate_of_not_found' }
  | { ok: false; reason: 'sponsored' };

/** The decision a transition records: kill and retract record why, approve and schedule clear it. */
function decisionOf(input: TransitionInput): { reason: StoredDecisionReason | null; note: string | null; duplicateOf: number | null } {
  if (!recordsDecision(input.action)) return { reason: null, note: null, duplicateOf: null };
  const reason: StoredDecisionReason = input.decision?.reason ?? DEFAULT_DECISION_REASON;
  const duplicateOf = reason === 'duplicate' ? (input.decision?.duplicateOf ?? null) : null;
  return { reason, note: input.decision?.note ?? null, duplicateOf };
}

/**
 * Move an article along the state machine under its row lock, in one transaction: refuse a paid ad
 * (approve, schedule) and an illegal move, check a duplicate_of target, write the status and the
 * decision, record the change in article_edits, (approve) compute its hot score at once so it
 * enters the hot feed ranked, and record the transition's event.
 */
export async function transitionArticle(db: Db, input: TransitionInput): Promise<TransitionOutcome> {
  return db.transaction().execute((trx) => transitionInTransaction(trx, input));
}

/** transitionArticle in the caller's transaction (several transitions as one motion: story-review-service.ts). */
export async function transitionInTransaction(trx: Transaction<Database>, input: TransitionInput): Promise<TransitionOutcome> {
  const t = TRANSITIONS[input.action];
  const cur = await lockForReview(trx, input.id);
  if (!cur) return { ok: false, reason: 'not_found' } as const;
  // Read under the row lock: the origin of a paid ad does not change, its status might.
  if (needsSponsoredReview(input.action, cur.origin)) return { ok: false, reason: 'sponsored' } as const;
  if (!canTransition(input.action, cur.status)) return { ok: false, reason: 'illegal', currentStatus: cur.status } as const;
  const scheduledFor = input.action === 'schedule' ? input.scheduledFor! : null;
  const decision = decisionOf(input);
  if (decision.duplicateOf !== null && !(await articleExists(trx, decision.duplicateOf))) return { ok: false, reason: 'duplicate_of_not_found' } as const;
  const article = await writeReview(trx, { id: input.id, to: t.to, editorId: input.editorId, scheduledFor, ...decision, publish: input.action === 'approve' });
  const changes = transitionChanges(cur, t.to, scheduledFor);
  await insertArticleEdit(trx, { articleId: input.id, editorId: input.editorId, changes, action: input.action, statusAt: cur.status, ...decision });
  if (input.action === 'approve') await recomputeHotScores(trx, { articleIds: [input.id], windowHours: 1, all: true });
  await recordEvents(trx, [newsEvent(articleEvent(t.event, article, cur.status))]);
  return { ok: true, article, previousStatus: cur.status, changes } as const;
}

/** A refused transition as the API's error. */
export function refusal(input: TransitionInput, r: Exclude<TransitionOutcome, { ok: true }>): DomainError {
  const { id, action } = input;
  switch (r.reason) {
    case 'not_found':
      return articleNotFound(id);
    case 'sponsored':
      return new DomainError('sponsored_review_required', `article ${id} is a sponsored post: review it with POST /api/v1/sponsored/${id}/approve or /reject`);
    case 'duplicate_of_not_found':
      return new DomainError('duplicate_of_not_found', `duplicate_of: no article ${input.decision?.duplicateOf}`);
    case 'illegal':
      return new DomainError('illegal_transition', `cannot ${action} an article that is ${r.currentStatus}`, {
        current_status: r.currentStatus,
        allowed_from: TRANSITIONS[action].from,
      });
  }
}

/** A transition that throws the API's error when refused; returns the changes recorded. */
async function review(db: Db, input: TransitionInput): Promise<Changes> {
  const r = await transitionArticle(db, input);
  if (!r.ok) throw refusal(input, r);
  return r.changes;
}

/** Publish now (a scheduled article at once; a killed one reverses the kill). A paid ad is refused: sponsored_review_required. */
export function approveArticle(db: Db, id: number, editorId: number): Promise<Changes> {
  return review(db, { id, action: 'approve', editorId });
}

/** Kill a submission (or a scheduled article), with its reason; a paid ad may be killed like any article. */
export function killArticle(db: Db, id: number, editorId: number, decision: DecisionInput): Promise<Changes> {
  return review(db, { id, action: 'kill', editorId, decision });
}

/** Schedule publication at `publishAt` (re-scheduling moves the time). A paid ad is refused: sponsored_review_required. */
export function scheduleArticle(db: Db, id: number, editorId: number, publishAt: Date): Promise<Changes> {
  return review(db, { id, action: 'schedule', editorId, scheduledFor: publishAt });
}

/** Retract a published article, with its reason. Final. */
export function retractArticle(db: Db, id: number, editorId: number, decision: DecisionInput): Promise<Changes> {
  return review(db, { id, action: 'retract', editorId, decision });
}

/**
 * Apply an editor's edit (allowed in every status): only changed fields are written, recorded in
 * article_edits and announced (internal article.edited), in one transaction. 404 when the article
 * does not exist.
 */
export async function editArticle(db: Db, input: { id: number; editorId: number; patch: Partial<EditableFields> }): Promise<Changes> {
  return db.transaction().execute(async (trx) => {
    const cur = await lockForEdit(trx, input.id);
    if (!cur) throw articleNotFound(input.id);
    const changes = diffEdit(cur, input.patch);
    if (Object.keys(changes).length === 0) return changes;
    await writeEdit(trx, input.id, editColumns(cur, changes));
    await insertArticleEdit(trx, { articleId: input.id, editorId: input.editorId, changes, action: 'edit', statusAt: cur.status });
    await recordEvents(trx, [internalEvent('article.edited', input.id, { reason: 'edit', fields: Object.keys(changes) })]);
    return changes;
  });
}

/**
 * Publish a scheduled article whose time has come (scheduled -> approved), rank it, and record
 * news.approved (previous_status scheduled), in one transaction. False when it is not scheduled or
 * not yet due (a retry, a re-scheduled article, a second job): nothing changes, nothing is recorded.
 */
export async function publishIfDue(db: Db, id: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await publishScheduledRow(trx, id);
    if (!row) return false;
    await recomputeHotScores(trx, { articleIds: [row.id], windowHours: 1, all: true });
    await recordEvents(trx, [newsEvent(articleEvent('news.approved', row, 'scheduled'))]);
    return true;
  });
}

/** Publish every scheduled article already due (at most `limit`), each in its own transaction. */
export async function publishDueArticles(db: Db, limit: number): Promise<{ due: number; published: number }> {
  const due = await dueScheduledIds(db, limit);
  let published = 0;
  for (const id of due) if (await publishIfDue(db, id)) published++;
  return { due: due.length, published };
}
