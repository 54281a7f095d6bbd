/**
 * credibility-vote: the per-vote credibility update (src/credibility/vote-queries.ts). Enqueued by
 * the relay for every committed vote change (article.voted carrying the voter), with a per-vote
 * deduplication id, so a burst of changes to one vote runs as one job plus at most one follow-up;
 * the job reads the vote as it is when it runs, so a retry or a follow-up writes the same row.
 */
import { z } from 'zod';
import { updateVoteCredibility } from '../src/credibility/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  kind: z.enum(['article_vote', 'yap_vote']),
  target_id: z.number().int().positive(),
  user_id: z.number().int().positive(),
});

export const job = defineJob({
  name: 'credibility-vote',
  payload,
  options: { ...defaultJobOptions, attempts: 5, backoffMs: 1000, concurrency: 4 },
  async run(p, deps) {
    return updateVoteCredibility(deps.db, p.kind, p.target_id, p.user_id);
  },
});
