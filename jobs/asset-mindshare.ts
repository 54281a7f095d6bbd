/**
 * asset-mindshare: compute every asset's share of stories, articles and engagement over 24 h, 7 d
 * and 30 d, with its top stories, and replace the stored result the asset page and the intel report
 * read (src/assets/mindshare-service.ts). Scheduled; idempotent (a run overwrites the last).
 */
import { z } from 'zod';
import { refreshMindshare } from '../src/assets/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({});

export const job = defineJob({
  name: 'asset-mindshare',
  payload,
  options: { ...defaultJobOptions, attempts: 2, backoffMs: 30_000, concurrency: 1 },
  async run(_p, deps) {
    return refreshMindshare(deps.db, deps.redis, deps.config.QUEUE_PREFIX);
  },
});
