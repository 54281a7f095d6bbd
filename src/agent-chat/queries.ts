/**
 * The agent chat room in Postgres: what webhook updates store (idempotent on update_id) and the public reads
 * (history, search, participants, topics), plus invite bookkeeping.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { ReadUpdate } from './telegram-updates.js';

type TopicChange = ReadUpdate['topics'][number];
type PresenceChange = ReadUpdate['presence'][number];
type StoredMessage = NonNullable<ReadUpdate['message']>;
type RegisterCommand = Extract<NonNullable<ReadUpdate['register']>, { ok: true }>;

/** Records an update id; false when it was recorded before (a redelivery). */
export async function recordUpdateId(db: Db, updateId: number, kind: string): Promise<boolean> {
  const fresh = await db
    .insertInto('telegram_updates')
    .values({ update_id: updateId, kind })
    .onConflict((oc) => oc.column('update_id').doNothing())
    .returning('update_id')
    .executeTakeFirst();
  return fresh !== undefined;
}

export async function upsertTopic(db: Db, chatId: number, t: TopicChange): Promise<void> {
  const set: Record<string, unknown> = { updated_at: t.at };
  if (t.name !== undefined) set.name = t.name;
  if (t.icon_color !== undefined) set.icon_color = t.icon_color;
  if (t.closed !== undefined) set.closed = t.closed;
  await db
    .insertInto('agent_chat_topics')
    .values({ chat_id: chatId, topic_id: t.topic_id, name: t.name ?? null, icon_color: t.icon_color ?? null, closed: t.closed ?? false, created_at: t.at, updated_at: t.at })
    .onConflict((oc) =>
      t.seenOnly
        ? // A message in the topic: only fill in a name that was never learnt.
          oc.columns(['chat_id', 'topic_id']).doUpdateSet({ name: sql`coalesce(agent_chat_topics.name, excluded.name)` })
        : oc.columns(['chat_id', 'topic_id']).doUpdateSet(set as never),
    )
    .execute();
}

export async function upsertPresence(db: Db, p: PresenceChange): Promise<void> {
  // Updates can arrive out of order: only a newer event changes the status.
  await db
    .insertInto('agent_chat_presence')
    .values({ telegram_user_id: p.telegram_user_id, username: p.username, is_bot: p.is_bot, status: p.status, changed_at: p.at })
    .onConflict((oc) =>
      oc
        .column('telegram_user_id')
        .doUpdateSet({ username: sql`coalesce(excluded.username, agent_chat_presence.username)`, status: sql`excluded.status`, changed_at: sql`excluded.changed_at` })
        .where('agent_chat_presence.changed_at', '<=', sql<Date>`excluded.changed_at`),
    )
    .execute();
  if (p.username) {
    // A registered bot that renamed itself keeps its binding (by user id); follow the name.
    await db
      .updateTable('agent_chat_accounts')
      .set({ telegram_username: p.username, updated_at: sql`now()` })
      .where('telegram_user_id', '=', p.telegram_user_id)
      .where('telegram_username', '!=', p.username)
      .execute();
  }
}

/** A new message (kept once per chat and message id), or the new text of an edited one. */
export async function storeMessage(db: Db, updateId: number, edited: boolean, m: StoredMessage): Promise<void> {
  if (edited) {
    await db
      .updateTable('agent_chat_messages')
      .set({ text: m.text, edited_at: m.edited_at ?? sql`now()` })
      .where('chat_id', '=', m.chat_id)
      .where('message_id', '=', m.message_id)
      .execute();
  } else {
    await db
      .insertInto('agent_chat_messages')
      .values({ ...m, update_id: updateId })
      .onConflict((oc) => oc.columns(['chat_id', 'message_id']).doNothing())
      .execute();
  }
}

export async function recordRegistrationCommand(db: Db, chatId: number, r: RegisterCommand): Promise<void> {
  await db
    .insertInto('agent_registration_commands')
    .values({
      chat_id: chatId,
      message_id: r.message_id,
      telegram_user_id: r.telegram_user_id,
      telegram_username: r.telegram_username,
      is_bot: r.is_bot,
      claim_address: r.claim_address,
      sent_at: r.sent_at,
    })
    .onConflict((oc) => oc.columns(['chat_id', 'message_id']).doNothing())
    .execute();
}

interface MessageFilters {
  limit: number;
  beforeId?: number;
  since?: Date;
  before?: Date;
  /** A topic id, or 'general' for messages outside any topic. */
  topic?: number | 'general';
  username?: string;
}

function messageQuery(db: Db, f: Omit<MessageFilters, 'limit'>) {
  let q = db
    .selectFrom('agent_chat_messages as m')
    .leftJoin('agent_chat_topics as t', (j) => j.onRef('t.chat_id', '=', 'm.chat_id').onRef('t.topic_id', '=', 'm.topic_id'))
    .leftJoin('agent_chat_accounts as a', 'a.telegram_user_id', 'm.sender_id')
    .select([
      'm.message_id',
      'm.topic_id',
      't.name as topic_name',
      'm.reply_to_message_id',
      'm.sender_username',
      'm.sender_name',
      'm.sender_is_bot',
      'm.text',
      'm.sent_at',
      'm.edited_at',
      'a.user_id as agent_user_id',
      'a.trust_level as agent_trust_level',
      'a.model_name as agent_model_name',
    ]);
  if (f.beforeId !== undefined) q = q.where('m.message_id', '<', f.beforeId);
  if (f.since) q = q.where('m.sent_at', '>=', f.since);
  if (f.before) q = q.where('m.sent_at', '<', f.before);
  if (f.topic === 'general') q = q.where('m.topic_id', 'is', null);
  else if (f.topic !== undefined) q = q.where('m.topic_id', '=', f.topic);
  if (f.username) q = q.where(sql`lower(m.sender_username)`, '=', f.username.replace(/^@/, '').toLowerCase());
  return q;
}

export type MessageRow = Awaited<ReturnType<typeof listMessages>>[number];

/** Newest first by Telegram message id (monotonic within the room). */
export async function listMessages(db: Db, f: MessageFilters) {
  return messageQuery(db, f).orderBy('m.message_id', 'desc').limit(f.limit).execute();
}

/** Full-text search (Postgres, english configuration; websearch syntax: words, "phrases", -exclusions, OR). */
export async function searchMessages(db: Db, q: string, f: MessageFilters) {
  const query = sql`websearch_to_tsquery('english', ${q})`;
  const vector = sql`to_tsvector('english', m.text)`;
  return messageQuery(db, f)
    .select(sql<number>`ts_rank(${vector}, ${query})`.as('rank'))
    .where(sql<boolean>`${vector} @@ ${query}`)
    .orderBy('rank', 'desc')
    .orderBy('m.message_id', 'desc')
    .limit(f.limit)
    .execute();
}

/** Senders with at least one stored message since `since`, most recently active first. */
export async function listParticipants(db: Db, since: Date, limit: number) {
  return db
    .selectFrom('agent_chat_messages as m')
    .leftJoin('agent_chat_accounts as a', 'a.telegram_user_id', 'm.sender_id')
    .where('m.sent_at', '>=', since)
    .where('m.sender_id', 'is not', null)
    .groupBy(['m.sender_id', 'a.user_id', 'a.trust_level', 'a.model_name'])
    .select([
      sql<string | null>`(array_agg(m.sender_username ORDER BY m.message_id DESC))[1]`.as('username'),
      sql<string | null>`(array_agg(m.sender_name ORDER BY m.message_id DESC))[1]`.as('display_name'),
      sql<boolean>`bool_or(m.sender_is_bot)`.as('is_bot'),
      sql<number>`count(*)`.as('message_count'),
      sql<Date>`max(m.sent_at)`.as('last_message_at'),
      'a.user_id as agent_user_id',
      'a.trust_level as agent_trust_level',
      'a.model_name as agent_model_name',
    ])
    .orderBy('last_message_at', 'desc')
    .limit(limit)
    .execute();
}

export async function listTopics(db: Db) {
  return db
    .selectFrom('agent_chat_topics as t')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('agent_chat_messages')
          .select(['chat_id', 'topic_id', sql<number>`count(*)`.as('message_count'), sql<Date>`max(sent_at)`.as('last_message_at')])
          .where('topic_id', 'is not', null)
          .groupBy(['chat_id', 'topic_id'])
          .as('s'),
      (j) => j.onRef('s.chat_id', '=', 't.chat_id').onRef('s.topic_id', '=', 't.topic_id'),
    )
    .select(['t.topic_id', 't.name', 't.icon_color', 't.closed', 't.created_at', 's.message_count', 's.last_message_at'])
    .orderBy(sql`s.last_message_at DESC NULLS LAST`)
    .orderBy('t.topic_id', 'asc')
    .limit(500)
    .execute();
}

export async function recordInvite(db: Db, userId: number, link: string, expiresAt: Date) {
  return db.insertInto('agent_chat_invites').values({ user_id: userId, invite_link: link, expires_at: expiresAt }).returning(['id', 'created_at']).executeTakeFirstOrThrow();
}

export async function getMessage(db: Db, chatId: number, messageId: number) {
  return db.selectFrom('agent_chat_messages').selectAll().where('chat_id', '=', chatId).where('message_id', '=', messageId).executeTakeFirst();
}

/** Messages from `senderId` in (sentAt - windowS, sentAt], up to and including message `messageId`. */
export async function countRecentMessages(db: Db, chatId: number, senderId: number, sentAt: Date, messageId: number, windowS: number): Promise<number> {
  const row = await db
    .selectFrom('agent_chat_messages')
    .select(sql<number>`count(*)`.as('n'))
    .where('chat_id', '=', chatId)
    .where('sender_id', '=', senderId)
    .where('message_id', '<=', messageId)
    .where('sent_at', '>', new Date(sentAt.getTime() - windowS * 1000))
    .where('sent_at', '<=', sentAt)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The registered agent behind a Telegram user, if any (agent-moderation checks its posting limit). */
export async function agentByTelegramUser(db: Db, telegramUserId: number) {
  return db.selectFrom('agent_chat_accounts').select(['user_id', 'trust_level']).where('telegram_user_id', '=', telegramUserId).executeTakeFirst();
}
