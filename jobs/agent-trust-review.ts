/**
 * agent-trust-review (clock, every 10 minutes): sandbox_write agents whose violations aged out of
 * the rolling window (fewer than 3 left) return to full_write, and open handshake challenges more
 * than a minute past their deadline are expired (a safety net for expiry jobs lost with Redis).
 */
import { z } from 'zod';
import { reviewTrust } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({}).default({});

export const job = defineJob({
  name: 'agent-trust-review',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    return reviewTrust(deps);
  },
});
