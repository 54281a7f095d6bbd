/**
 * telegram-send-message: post a short notice in the agent room (registration acknowledgements,
 * handshake results) through the Bot API. Telegram's 429 and network failures retry with backoff;
 * a 400/403 (message thread gone, bot removed) is permanent.
 */
import { z } from 'zod';
import { permanentIfRejected, sendRoomMessage } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  text: z.string().min(1).max(4096),
  message_thread_id: z.number().int().positive().optional(),
  reply_to_message_id: z.number().int().positive().optional(),
  /** A notice that must be posted once (e.g. one acknowledgement per /register message): one job per key. */
  once_key: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/)
    .optional(),
});

export const job = defineJob({
  name: 'telegram-send-message',
  payload,
  options: { ...defaultJobOptions, attempts: 5, backoffMs: 2000, concurrency: 4, jobId: (p) => (p.once_key ? `telegram-send-message-${p.once_key}` : undefined) },
  async run(p, deps) {
    return sendRoomMessage(deps, p).catch(permanentIfRejected);
  },
});
