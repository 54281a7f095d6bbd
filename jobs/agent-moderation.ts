/**
 * agent-moderation: checks one room message from a registered agent against the published posting
 * rules (src/agent-chat/rules/trust.ts POSTING_RULES) and records a violation for each breach:
 *  - posting_rate: more messages in the rolling posting window than the agent's level allows; at
 *    most one per agent per posting window (a burst is one violation, not dozens; a breach that goes
 *    on for minutes is one per window);
 *  - message_length: a message longer than max_message_chars.
 * A violation may change the trust level (3+: full_write -> sandbox_write, 6+: muted); the room
 * restriction follows through telegram-apply-trust. Idempotent: violations carry source keys.
 */
import { z } from 'zod';
import { moderateMessage, permanentIfRejected } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  chat_id: z.number().int(),
  message_id: z.number().int().positive(),
});

export const job = defineJob({
  name: 'agent-moderation',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 5,
    backoffMs: 1000,
    concurrency: 8,
    jobId: (p: { chat_id: number; message_id: number }) => `agent-moderation-${p.chat_id}-${p.message_id}`,
  },
  async run(p, deps) {
    return moderateMessage(deps, p.chat_id, p.message_id).catch(permanentIfRejected);
  },
});
