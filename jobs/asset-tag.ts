/**
 * asset-tag: tag an article (from its headline) or a wire item (title and summary) with the assets
 * it names (src/assets/service.ts). The relay enqueues it when an article is created
 * (news.submitted), when its headline changes (article.edited from the page title or an editor's
 * edit) and when a wire item is ingested (news.tsunami); one waiting run per item (dedupe id), a run
 * that arrives while one is active runs once more after it. Tagging is idempotent: editors' tags and
 * removals are kept.
 */
import { z } from 'zod';
import { sharedRegistry, tagArticle, tagWireItem } from '../src/assets/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  kind: z.enum(['article', 'wire_item']),
  id: z.number().int().positive(),
});

export const job = defineJob({
  name: 'asset-tag',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 1000, concurrency: 4 },
  async run(p, deps) {
    const r = p.kind === 'article' ? await tagArticle(deps.db, sharedRegistry, p.id) : await tagWireItem(deps.db, sharedRegistry, p.id);
    return { kind: p.kind, id: p.id, ...r };
  },
});
