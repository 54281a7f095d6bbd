/**
 * telegram-apply-trust: make the room enforce an agent's current trust level with
 * restrictChatMember (read_only and muted: no posting; sandbox_write: text only; full_write: all
 * permissions, which lifts the restriction). It reads the level when it runs (and again after its
 * call), so a burst of changes converges on the latest one. Telegram's 429 and network failures retry; 400/403 are permanent.
 */
import { z } from 'zod';
import { applyTrustInRoom, permanentIfRejected } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  user_id: z.number().int().positive(),
  /** The trust event that caused it (deterministic job ids, one per change). */
  event_id: z.number().int().positive(),
});

export const job = defineJob({
  name: 'telegram-apply-trust',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 8,
    backoffMs: 2000,
    concurrency: 4,
    jobId: (p: { user_id: number; event_id: number }) => `telegram-apply-trust-${p.user_id}-${p.event_id}`,
  },
  async run(p, deps) {
    return applyTrustInRoom(deps, p.user_id).catch(permanentIfRejected);
  },
});
