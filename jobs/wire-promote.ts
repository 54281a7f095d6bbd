/**
 * wire-promote: score new wire items and promote the best into the editors' queue
 * (src/wire/service.ts; the scores are src/wire/rules/promotion.ts).
 */
import { z } from 'zod';
import { scoreAndPromoteWireItems } from '../src/wire/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({ batch: z.number().int().min(1).max(5000).default(500) }).default({ batch: 500 });

export const job = defineJob({
  name: 'wire-promote',
  payload,
  options: { ...defaultJobOptions, attempts: 3, concurrency: 1 },
  run: (p, deps) => scoreAndPromoteWireItems(deps, p.batch),
});
