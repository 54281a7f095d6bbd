/**
 * The stories (src/stories/) behind a provenance check's matches: each matched article's story_id,
 * the story of a wire item carrying one of the checked URLs, and the summaries of those stories.
 * Reads only: assignment belongs to the story-assign worker.
 */
import type { Db } from '../platform/db.js';
import type { MatchStories, StorySummary } from './rules/check.js';

/** Story ids and summaries for these matched articles, and for wire items of these normalised URLs seen since `since`. */
export async function matchStories(db: Db, articleIds: readonly number[], normalizedUrls: readonly string[], since: Date): Promise<MatchStories> {
  const [articles, wire] = await Promise.all([
    articleIds.length
      ? db
          .selectFrom('articles')
          .select(['id', 'story_id'])
          .where('id', 'in', [...articleIds])
          .execute()
      : [],
    normalizedUrls.length
      ? db
          .selectFrom('wire_items')
          .select('story_id')
          .where('normalized_url', 'in', [...normalizedUrls])
          .where('story_id', 'is not', null)
          .where('ingested_at', '>=', since)
          .orderBy('ingested_at')
          .orderBy('id')
          .limit(1)
          .execute()
      : [],
  ]);
  const byArticle = new Map(articles.map((a) => [a.id, a.story_id]));
  const wireStory = wire[0]?.story_id ?? null;
  const ids = [...new Set([...byArticle.values(), wireStory].filter((x): x is number => x !== null))];
  const rows = ids.length ? await db.selectFrom('stories').select(['id', 'first_seen_at', 'member_count', 'source_count']).where('id', 'in', ids).execute() : [];
  const summaries = new Map<number, StorySummary>(rows.map((r) => [r.id, r]));
  return { byArticle, wireStory, summaries };
}
