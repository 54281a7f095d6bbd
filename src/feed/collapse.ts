/**
 * `collapse=story` on the feed and its syndication formats: one item per story (its best-ranked
 * matching article on the page's ordering, src/articles/collapsed-feed-queries.ts) with the story's
 * size; an article without a story stays an item of its own. The parameter is part of the query
 * string, hence of the feed cache's key and of the page's ETag.
 */
import { z } from 'zod';
import { toArticleItem, type CollapsedItemRow } from '../articles/index.js';

const COLLAPSE_VALUES = ['story'] as const;
export type Collapse = (typeof COLLAPSE_VALUES)[number];

export const collapseParam = z.enum(COLLAPSE_VALUES).optional().meta({
  description:
    "`story`: one item per story (GET /api/v1/stories/), the story's best-ranked matching article in this ordering, with `story_size` (members, copies included) and `story_sources` (independent sources); articles without a story yet stay items of their own. `count` then counts items after collapsing. Any other value is 400 validation_failed.",
});

/** A collapsed page's item: the feed item plus its story's size (null without a story). */
export function toCollapsedItem(r: CollapsedItemRow) {
  return { ...toArticleItem(r), story_size: r.story_size ?? null, story_sources: r.story_sources ?? null };
}
