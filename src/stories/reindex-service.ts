/**
 * Reindex: recompute the stored features of the members of recent stories, their lookup keys and
 * the word counts with the current text rules (`npm run cli -- stories reindex`). Members keep the
 * features computed when they were assigned, so after a change of the rules (tokenisation,
 * stemming, synonyms) new items would be compared with old members' words as they were written
 * then, and a word the rules now write differently would weigh as rare until counted again.
 *
 * Stories are rewritten in batches of whole stories, each in one transaction under the assigner's
 * lock (assignments wait for it, never see a story half rewritten); the word counts are recounted
 * at the end from the stored words of the window's members. Memberships do not change. Running it
 * again redoes the same work with the same result, so an interrupted run is finished by a new one.
 */
import type { Db } from '../platform/db.js';
import { lockAssigner } from './queries.js';
import { membersOf, recountWords, replaceKeys, storiesAfter, writeFeatures } from './reindex-queries.js';
import { itemFeatures } from './rules/features.js';
import { copyKeys } from './rules/lookup.js';

export async function reindexStories(db: Db, since: Date, opts: { batch: number; onBatch?: (stories: number) => void }): Promise<{ stories: number; members: number }> {
  let after = 0;
  let stories = 0;
  let members = 0;
  for (;;) {
    const ids = await storiesAfter(db, since, after, opts.batch);
    if (ids.length === 0) break;
    members += await db.transaction().execute(async (trx) => {
      await lockAssigner(trx);
      const rows = await membersOf(trx, ids);
      const keys = new Map<string, { key: string; storyId: number; lastSeenAt: Date }>();
      const features = rows.map((m) => {
        const f = itemFeatures({ title: m.headline, url: m.url, source: m.source, at: m.seenAt.getTime(), text: m.text });
        for (const key of new Set([...copyKeys(f), ...f.words])) {
          const k = `${m.storyId}\n${key}`;
          const held = keys.get(k);
          if (!held) keys.set(k, { key, storyId: m.storyId, lastSeenAt: m.seenAt });
          else if (m.seenAt > held.lastSeenAt) held.lastSeenAt = m.seenAt;
        }
        return { kind: m.kind, id: m.id, features: JSON.stringify(f) };
      });
      await writeFeatures(trx, features);
      await replaceKeys(trx, ids, [...keys.values()]);
      return rows.length;
    });
    stories += ids.length;
    after = ids[ids.length - 1]!;
    opts.onBatch?.(stories);
  }
  await db.transaction().execute(async (trx) => {
    await lockAssigner(trx);
    await recountWords(trx, since);
  });
  return { stories, members };
}
