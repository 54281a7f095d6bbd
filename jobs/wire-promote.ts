/**
 * wire-promote: score new wire items and promote the best into the editors' queue.
 *
 * novelty = 1 - (how well the story is already covered): 0 when its normalised URL is already an
 * article of the last 30 days (approved, submitted or scheduled), otherwise 1 - the best headline
 * similarity among trigram candidates of those articles (string-similarity on normalised
 * headlines, the provenance matcher). score = novelty x the source's weight (0..10, default 1).
 *
 * Items of the last 24 hours with score >= WIRE_PROMOTE_MIN_SCORE are promoted, best first, at
 * most WIRE_PROMOTE_MAX_PER_RUN per run, each as a `submitted` article with origin `tsunami`
 * (events `news.tsunami_promoted`, public, and `news.submitted`, staff). Novelty is checked again
 * just before promotion (another article may have arrived since scoring), and two items of one run
 * that tell the same story are promoted once.
 */
import { z } from 'zod';
import { HEADLINE_MATCH_THRESHOLD, headlineSimilarity } from '../src/provenance/index.js';
import { provenanceSettings } from '../src/provenance/index.js';
import { LOOKBACK_MS } from '../src/provenance/index.js';
import type { Db } from '../src/platform/db.js';
import { articlesByUrl, headlineCandidates } from '../src/provenance/index.js';
import { claimUnscored, promoteWireItem, promotionCandidates, setScore } from '../src/wire/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({ batch: z.number().int().min(1).max(5000).default(500) }).default({ batch: 500 });

/** Article statuses that already cover a story for promotion purposes. */
export const COVERED_STATUSES = ['approved', 'submitted', 'scheduled'] as const;
const CANDIDATE_HOURS = 24;

async function novelty(db: Db, item: { title: string; normalized_url: string }, now: Date, trgmThreshold: number): Promise<number> {
  const since = new Date(now.getTime() - LOOKBACK_MS);
  if ((await articlesByUrl(db, item.normalized_url, since, COVERED_STATUSES)).length > 0) return 0;
  const candidates = await headlineCandidates(db, item.title, since, { trgmThreshold, limit: 20, statuses: COVERED_STATUSES });
  const best = candidates.reduce((m, c) => Math.max(m, headlineSimilarity(item.title, c.headline)), 0);
  return Math.round((1 - best) * 10_000) / 10_000;
}

export const job = defineJob({
  name: 'wire-promote',
  payload,
  options: { ...defaultJobOptions, attempts: 3, concurrency: 1 },
  async run(p, deps) {
    const now = new Date();
    const settings = provenanceSettings(deps.config);
    const trgm = settings.trgmThreshold;
    const claimed = await claimUnscored(deps.db, now, p.batch);
    for (const item of claimed) {
      const n = await novelty(deps.db, item, now, trgm);
      await setScore(deps.db, item.id, n, Math.round(n * item.weight * 10_000) / 10_000);
    }

    const promoted: { wire_item_id: number; article_id: number }[] = [];
    const max = settings.wirePromoteMaxPerRun;
    if (max > 0) {
      const candidates = await promotionCandidates(deps.db, now, settings.wirePromoteMinScore, CANDIDATE_HOURS, max * 4);
      const titles: string[] = [];
      for (const c of candidates) {
        if (promoted.length >= max) break;
        if (titles.some((t) => headlineSimilarity(t, c.title) >= HEADLINE_MATCH_THRESHOLD)) continue;
        // Covered since it was scored? Then it is no longer novel: record that and move on.
        const fresh = await novelty(deps.db, c, now, trgm);
        if (fresh < (c.novelty ?? 1)) {
          const score = Math.round(fresh * c.weight * 10_000) / 10_000;
          await setScore(deps.db, c.id, fresh, score);
          if (score < settings.wirePromoteMinScore) continue;
        }
        const r = await promoteWireItem(deps.db, c.id, { promotedBy: null, now: new Date() });
        if (r.outcome !== 'promoted') continue;
        titles.push(c.title);
        promoted.push({ wire_item_id: r.wireItemId, article_id: r.article.id });
      }
    }
    deps.log.info({ job: 'wire-promote', scored: claimed.length, promoted: promoted.length }, 'wire items scored');
    return { scored: claimed.length, promoted };
  },
});
