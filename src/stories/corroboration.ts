/**
 * Wire promotion by corroboration, inside the assigner's transaction (service.ts): when a wire
 * item's assignment makes its story newly covered by WIRE_PROMOTE_MIN_SOURCES independent sources
 * (rules/corroboration.ts), the story gets one queue item, from its earliest independent wire
 * member that no other transaction holds (the item being assigned, at worst), through the wire feature's promotion (the same article, events `news.tsunami_promoted`
 * and `news.submitted`, recorded in this transaction).
 *
 * Exactly once: the promotion claims the story (stories.promoted_at, a conditional UPDATE in this
 * transaction), and so does the score-based promotion job; whichever commits first wins, the other
 * finds the claim and creates nothing. A retried assignment finds its item assigned and never gets
 * here; a killed one rolled back its claim with everything else.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { promoteWireItemIn } from '../wire/index.js';
import { storyCovered, wireMembersForPromotion } from './promotion-queries.js';

/** The article promoted for the story, or null when it was covered or had nothing promotable. */
export async function promoteCorroborated(trx: Transaction<Database>, storyId: number, now: Date): Promise<number | null> {
  if (await storyCovered(trx, storyId)) return null;
  for (const wireItemId of await wireMembersForPromotion(trx, storyId)) {
    const r = await promoteWireItemIn(trx, wireItemId, { promotedBy: null, now, claimStory: true, skipLocked: true });
    if (r.outcome === 'promoted') return r.article.id;
    // Claimed meanwhile, a member promoted by an editor, or a member's URL already an article (in
    // the queue or on the site): the story has its queue item. not_found: deleted meanwhile;
    // locked: another transaction holds that member (its own assignment, waiting for the
    // assigner's lock that this one holds), so the next member is promoted instead.
    if (r.outcome !== 'not_found' && r.outcome !== 'locked') return null;
  }
  return null;
}
