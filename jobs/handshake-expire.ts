/**
 * handshake-expire: enqueued by POST /agent-chat/handshake/start/ with delay = HANDSHAKE_TTL_S, so the
 * worker owns the challenge's timing: at the deadline it moves the challenge from open to expired
 * (answered, superseded or already expired challenges are left alone). A job that runs early (clock
 * skew between processes) re-enqueues itself for the remainder.
 */
import { z } from 'zod';
import { expireHandshake } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  challenge_id: z.string().regex(/^hs_[A-Za-z0-9_-]{10,64}$/),
  /** Re-enqueues after an early run (bounded). */
  round: z.number().int().min(0).max(5).default(0),
});

export const job = defineJob({
  name: 'handshake-expire',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 5,
    backoffMs: 500,
    concurrency: 16,
    jobId: (p: { challenge_id: string; round?: number }) => `handshake-expire-${p.challenge_id}-${p.round ?? 0}`,
  },
  async run(p, deps) {
    return expireHandshake(deps, p.challenge_id, p.round);
  },
});
