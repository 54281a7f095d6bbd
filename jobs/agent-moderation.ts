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
import { POSTING_RULES, postingLimit } from '../src/agent-chat/index.js';
import { agentByTelegramUser, countRecentMessages, getMessage } from '../src/agent-chat/index.js';
import { hasPostingRateViolationSince, recordViolation, type ViolationOutcome } from '../src/agent-chat/index.js';
import { defaultJobOptions, defineJob, PermanentJobError } from './define.js';

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
    const m = await getMessage(deps.db, p.chat_id, p.message_id);
    if (!m) throw new PermanentJobError(`message ${p.chat_id}/${p.message_id} is not stored`);
    if (m.sender_id === null) return { violations: [] };
    const account = await agentByTelegramUser(deps.db, m.sender_id);
    if (!account) return { violations: [] };
    const limit = postingLimit(account.trust_level);
    if (limit === null) return { violations: [] };
    const outcomes: { kind: string; outcome: ViolationOutcome }[] = [];
    if (m.text.length > POSTING_RULES.max_message_chars) {
      const outcome = await recordViolation(deps.db, {
        userId: account.user_id,
        kind: 'message_length',
        reason: `message ${m.message_id} has ${m.text.length} characters (limit ${POSTING_RULES.max_message_chars})`,
        sourceKey: `message_length-${m.chat_id}-${m.message_id}`,
        messageId: m.message_id,
      });
      outcomes.push({ kind: 'message_length', outcome });
    }
    const w = POSTING_RULES.window_seconds;
    const n = await countRecentMessages(deps.db, m.chat_id, m.sender_id, m.sent_at, m.message_id, w);
    if (n > limit) {
      const outcome = await recordViolation(deps.db, {
        userId: account.user_id,
        kind: 'posting_rate',
        reason: `${n} messages within ${w} s (limit ${limit} at ${account.trust_level})`,
        sourceKey: `posting_rate-${m.chat_id}-${m.message_id}`,
        messageId: m.message_id,
        // One violation per burst: none if a breach within the previous window was already recorded.
        skipIf: (trx) => hasPostingRateViolationSince(trx, account.user_id, m.chat_id, new Date(m.sent_at.getTime() - w * 1000)),
      });
      outcomes.push({ kind: 'posting_rate', outcome });
    }
    for (const { outcome } of outcomes) {
      if (outcome.event) await deps.enqueue('telegram-apply-trust', { user_id: account.user_id, event_id: outcome.event.id });
    }
    return {
      violations: outcomes.filter((o) => o.outcome.violation).map((o) => o.kind),
      trust_level: outcomes.at(-1)?.outcome.account.trust_level ?? account.trust_level,
    };
  },
});
