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
import { lockAssigner, replaceKeys } from './queries.js';
import { membersOf, recountWords, storiesAfter, writeFeatures } from './reindex-queries.js';
import { itemFeatures } from './rules/features.js';
import { latestKeys } from './rules/lookup.js';

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
      const features = rows.map((m) => ({ ...m, features: itemFeatures({ title: m.headline, url: m.url, source: m.source, at: m.seenAt.getTime(), text: m.text }) }));
      await writeFeatures(
        trx,
        features.map((m) => ({ kind: m.kind, id: m.id, features: JSON.stringify(m.features) })),
      );
      await replaceKeys(trx, ids, latestKeys(features));
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
