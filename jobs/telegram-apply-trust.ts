/**
 * telegram-apply-trust: make the room enforce an agent's current trust level with
 * restrictChatMember (read_only and muted: no posting; sandbox_write: text only; full_write: all
 * permissions, which lifts the restriction). It reads the level when it runs (and again after its
 * call), so a burst of changes converges on the latest one. Telegram's 429 and network failures retry; 400/403 are permanent.
 */
import { z } from 'zod';
import { telegramPermissions, type TrustLevel } from '../src/agent-chat/index.js';
import { getAgentAccount } from '../src/agent-chat/index.js';
import { botApiFromConfig, TelegramError } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob, PermanentJobError } from './define.js';

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
    const api = botApiFromConfig(deps.config);
    const chatId = deps.config.TELEGRAM_CHAT_ID;
    if (!api || !chatId) return { applied: false, reason: 'telegram_not_configured' };
    // Jobs for one agent may run concurrently and their calls land out of order. Each job re-reads
    // the level after its call and applies again if it changed, so the call that lands last is
    // always followed by a check against the latest level: the room converges on it.
    let applied: TrustLevel | null = null;
    for (let round = 0; round < 5; round++) {
      const account = await getAgentAccount(deps.db, p.user_id);
      if (!account) throw new PermanentJobError(`user ${p.user_id} is not a registered agent`);
      const level = account.trust_level;
      if (level === applied) return { applied: true, trust_level: level, rounds: round };
      try {
        await api.restrictChatMember({ chat_id: chatId, user_id: account.telegram_user_id, permissions: telegramPermissions(level) });
      } catch (err) {
        if (err instanceof TelegramError && (err.errorCode === 400 || err.errorCode === 403)) throw new PermanentJobError(err.message);
        throw err;
      }
      applied = level;
    }
    throw new Error(`trust level of user ${p.user_id} kept changing; retrying`);
  },
});
