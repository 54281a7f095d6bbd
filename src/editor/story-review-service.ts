/**
 * Reviewing the queue by story: approve one article of a story and kill the story's other waiting
 * articles as duplicates of it, as one motion (POST /stories/{id}/approve). One transaction runs
 * the editorial transitions of ./service.ts (the same state machine, edit history and events as
 * the single-article endpoints): all of them commit, or none.
 */
import { articleNotFound } from '../articles/index.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { refusal, transitionInTransaction } from './service.js';
import { articleStory, storyExists, waitingMembers } from './story-review-queries.js';

interface StoryReviewInput {
  storyId: number;
  articleId: number;
  editorId: number;
  note: string | null;
}

interface StoryReviewResult {
  approved: number;
  /** False when the article was already published (it is kept as it is). */
  newlyApproved: boolean;
  killed: number[];
  /** Waiting members another editor decided meanwhile: left as they are. */
  skipped: number[];
}

export async function approveStoryArticle(db: Db, input: StoryReviewInput): Promise<StoryReviewResult> {
  const { storyId, articleId, editorId } = input;
  return db.transaction().execute(async (trx) => {
    if (!(await storyExists(trx, storyId))) throw new DomainError('story_not_found', `no story with id ${storyId}`, { story_id: storyId });
    const chosen = await articleStory(trx, articleId);
    if (!chosen) throw articleNotFound(articleId);
    if (chosen.story_id !== storyId) {
      throw new DomainError('story_members_not_in_story', `article ${articleId} is not a member of story ${storyId}`, {
        story_id: storyId,
        items: [{ kind: 'article', id: articleId }],
      });
    }
    let newlyApproved = false;
    if (chosen.status !== 'approved') {
      const approve = { id: articleId, action: 'approve' as const, editorId };
      const r = await transitionInTransaction(trx, approve);
      if (!r.ok) throw refusal(approve, r);
      newlyApproved = true;
    }
    const killed: number[] = [];
    const skipped: number[] = [];
    for (const id of await waitingMembers(trx, storyId)) {
      if (id === articleId) continue;
      const r = await transitionInTransaction(trx, { id, action: 'kill', editorId, decision: { reason: 'duplicate', duplicateOf: articleId, note: input.note } });
      (r.ok ? killed : skipped).push(id);
    }
    return { approved: articleId, newlyApproved, killed, skipped };
  });
}
