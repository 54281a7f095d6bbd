/**
 * Ingesting a Telegram webhook update: one transaction stores what the update says (topics,
 * presence, the message, a /register command) and reports the follow-ups the route enqueues.
 */
import type { Db } from '../platform/db.js';
import { agentByTelegramUser, recordRegistrationCommand, recordUpdateId, storeMessage, upsertPresence, upsertTopic } from './queries.js';
import type { ReadUpdate } from './telegram-updates.js';

interface IngestOutcome {
  duplicate: boolean;
  /** The stored message's sender is a registered agent: the moderation job checks it. */
  moderate: { chat_id: number; message_id: number } | null;
  register: ReadUpdate['register'] | null;
}

/**
 * Store what one update says, once: a redelivered update_id changes nothing (but its follow-ups are
 * reported again, so a job lost to a Redis failure is enqueued on Telegram's retry; their job ids
 * are deterministic).
 */
export async function ingestUpdate(db: Db, updateId: number, chatId: number, read: ReadUpdate): Promise<IngestOutcome> {
  return db.transaction().execute(async (trx) => {
    const duplicate = !(await recordUpdateId(trx, updateId, read.inRoom ? read.kind : `${read.kind}:ignored`));
    if (!duplicate && read.inRoom) {
      for (const t of read.topics) await upsertTopic(trx, chatId, t);
      for (const p of read.presence) await upsertPresence(trx, p);
      if (read.message) await storeMessage(trx, updateId, read.kind === 'edited_message', read.message);
      if (read.register?.ok) await recordRegistrationCommand(trx, chatId, read.register);
    }
    let moderate: IngestOutcome['moderate'] = null;
    const m = read.message;
    if (read.inRoom && read.kind === 'message' && m?.sender_id != null) {
      const agent = await agentByTelegramUser(trx, m.sender_id);
      if (agent) moderate = { chat_id: m.chat_id, message_id: m.message_id };
    }
    return { duplicate, moderate, register: read.inRoom ? (read.register ?? null) : null };
  });
}
