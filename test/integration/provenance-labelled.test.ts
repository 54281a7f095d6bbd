/**
 * End-to-end recall of the text matcher (trigram candidates from the provenance headline index at
 * PROVENANCE_TRGM_THRESHOLD, then string-similarity at HEADLINE_MATCH_THRESHOLD) on the labelled
 * headline pairs: each pair's first headline is a curated article, the second is the query. Every
 * pair that string-similarity accepts must also be a trigram candidate.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HEADLINE_MATCH_THRESHOLD, headlineSimilarity } from '../../src/provenance/rules/headline-similarity.js';
import { slugify } from '../../src/platform/url/slug.js';
import { provenanceSettings } from '../../src/provenance/rules/settings.js';
import { checkProvenance } from '../../src/provenance/queries.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { headlinePairs, heldOutHeadlinePairs } from '../data/provenance-headline-pairs.js';

let deps: TestDeps;
const idOf = new Map<string, number>();

beforeAll(async () => {
  deps = await createTestDeps();
  const heads = [...new Set([...headlinePairs, ...heldOutHeadlinePairs].map((p) => p.a))];
  for (const [i, h] of heads.entries()) {
    const row = await deps.db
      .insertInto('articles')
      .values({
        slug: slugify(h),
        headline: h,
        url: `https://labelled.example/${i}`,
        normalized_url: `https://labelled.example/${i}`,
        source: 'labelled.example',
        status: 'approved',
        created_at: new Date(Date.now() - (i + 1) * 3600_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    idOf.set(h, row.id);
  }
});
afterAll(() => deps.close());

it('finds most rewordings end to end and rarely matches a different story to its look-alike', async () => {
  const opts = { now: new Date(), trgmThreshold: provenanceSettings(deps.config).trgmThreshold };
  let found = 0;
  let positives = 0;
  let falseMatches = 0;
  let negatives = 0;
  const missed: string[] = [];
  const lostByIndex: string[] = [];
  for (const p of [...headlinePairs, ...heldOutHeadlinePairs]) {
    const r = await checkProvenance(deps.db, { text: p.b }, opts);
    const hit = r.matches.some((m) => m.news_id === idOf.get(p.a));
    if (p.same) {
      positives++;
      if (hit) found++;
      else missed.push(p.b);
      // Rewordings string-similarity would accept but the trigram candidates did not offer.
      if (!hit && headlineSimilarity(p.a, p.b) >= HEADLINE_MATCH_THRESHOLD) lostByIndex.push(p.b);
    } else {
      negatives++;
      if (hit) falseMatches++;
    }
  }
  console.log({ positives, found, recall: found / positives, negatives, falseMatches, missed });
  console.log({ lostByIndex });
  expect(found / positives).toBeGreaterThanOrEqual(0.9);
  // Known: 'Court rules in favor of Grayscale in SEC bitcoin ETF lawsuit' (key similarity 0.42, under
  // the 0.45 candidate threshold; string-similarity would accept it). More would mean the index,
  // not the scorer, is what loses rewordings.
  expect(lostByIndex.length).toBeLessThanOrEqual(1);
  expect(falseMatches / negatives).toBeLessThanOrEqual(0.25);
});
