/**
 * Telegram webhook updates: the schema of the parts the service reads (everything else is accepted
 * and ignored) and a pure reading of one update into what to store. Only the configured room counts.
 *
 * Forum topics: a message belongs to a topic when `is_topic_message` is true; its topic id is
 * `message_thread_id`. (Replies in groups without topics also carry message_thread_id, so the flag
 * matters.) Messages of the General topic have no topic (null).
 */
import { z } from 'zod';

// Postgres text cannot hold NUL; Telegram never sends it, but the schema must not let it reach SQL.
const str = z.string().transform((v) => v.replace(/\u0000/g, ''));
// Unix seconds up to 2106: a larger value is not a Telegram date.
const unix = z
  .number()
  .int()
  .min(0)
  .max(2 ** 32);

const user = z.object({
  id: z.number().int(),
  is_bot: z.boolean().default(false),
  first_name: str.pipe(z.string().max(256)).default(''),
  last_name: str.pipe(z.string().max(256)).optional(),
  username: str.pipe(z.string().max(64)).optional(),
});

const topicCreated = z.object({ name: str.pipe(z.string().max(256)), icon_color: z.number().int().optional() });

// Telegram ids of messages and topics are positive.
const id = z.number().int().positive();

const message = z.object({
  message_id: id,
  date: unix,
  chat: z.object({ id: z.number().int(), type: z.string() }),
  from: user.optional(),
  message_thread_id: id.optional(),
  is_topic_message: z.boolean().optional(),
  text: str.optional(),
  caption: str.optional(),
  edit_date: unix.optional(),
  reply_to_message: z.object({ message_id: id, forum_topic_created: topicCreated.optional() }).optional(),
  forum_topic_created: topicCreated.optional(),
  forum_topic_edited: z.object({ name: str.pipe(z.string().max(256)).optional() }).optional(),
  forum_topic_closed: z.object({}).optional(),
  forum_topic_reopened: z.object({}).optional(),
  new_chat_members: z.array(user).optional(),
  left_chat_member: user.optional(),
});

const chatMember = z.object({
  chat: z.object({ id: z.number().int(), type: z.string() }),
  date: unix,
  new_chat_member: z.object({ user, status: z.string(), is_member: z.boolean().optional() }),
});

/** The webhook body: a Telegram Update. Unknown update kinds pass through and are ignored. */
export const updateSchema = z
  .looseObject({
    update_id: z.number().int().min(0),
    message: message.optional(),
    edited_message: message.optional(),
    chat_member: chatMember.optional(),
  })
  .meta({ id: 'TelegramUpdate', description: 'A Telegram Update object (https://core.telegram.org/bots/api#update)' });

type Update = z.infer<typeof updateSchema>;
type Message = z.infer<typeof message>;
type User = z.infer<typeof user>;

interface StoredMessage {
  chat_id: number;
  message_id: number;
  topic_id: number | null;
  reply_to_message_id: number | null;
  sender_id: number | null;
  sender_username: string | null;
  sender_name: string | null;
  sender_is_bot: boolean;
  text: string;
  sent_at: Date;
  edited_at: Date | null;
}

interface TopicChange {
  topic_id: number;
  name?: string;
  icon_color?: number | null;
  closed?: boolean;
  at: Date;
  /** A topic only seen through a message: create it without touching its name. */
  seenOnly?: boolean;
}

interface PresenceChange {
  telegram_user_id: number;
  username: string | null;
  is_bot: boolean;
  status: 'member' | 'left';
  at: Date;
}

type RegisterCommand =
  | { ok: true; message_id: number; telegram_user_id: number; telegram_username: string; is_bot: boolean; claim_address: string | null; sent_at: Date; topic_id: number | null }
  | { ok: false; message_id: number; topic_id: number | null; reason: string };

export interface ReadUpdate {
  kind: 'message' | 'edited_message' | 'chat_member' | 'other';
  /** False when the update is about another chat (a private chat with the bot, another group). */
  inRoom: boolean;
  message?: StoredMessage;
  topics: TopicChange[];
  presence: PresenceChange[];
  register?: RegisterCommand;
}

const at = (unix: number) => new Date(unix * 1000);

function displayName(u: User): string | null {
  const n = [u.first_name, u.last_name].filter(Boolean).join(' ').trim();
  return n || null;
}

function topicOf(m: Message): number | null {
  return m.is_topic_message && m.message_thread_id !== undefined ? m.message_thread_id : null;
}

// `/register`, `/register@SomeBot`, optionally followed by the operator's wallet address.
const REGISTER = /^\/register(?:@([A-Za-z0-9_]{3,32}))?(?:\s+(\S+))?\s*$/i;

function readRegister(m: Message, botUsername: string | null): RegisterCommand | undefined {
  const match = m.text ? REGISTER.exec(m.text.trim()) : null;
  if (!match || !m.from) return undefined;
  const addressedTo = match[1];
  if (addressedTo && botUsername && addressedTo.toLowerCase() !== botUsername.toLowerCase()) return undefined;
  const topic = topicOf(m);
  if (!m.from.username) return { ok: false, message_id: m.message_id, topic_id: topic, reason: 'the sender has no Telegram username; set one and send /register again' };
  const arg = match[2];
  if (arg !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(arg)) {
    return {
      ok: false,
      message_id: m.message_id,
      topic_id: topic,
      reason: "the argument of /register must be the operator account's wallet address (0x + 40 hex digits), or nothing",
    };
  }
  return {
    ok: true,
    message_id: m.message_id,
    telegram_user_id: m.from.id,
    telegram_username: m.from.username,
    is_bot: m.from.is_bot,
    claim_address: arg ? arg.toLowerCase() : null,
    sent_at: at(m.date),
    topic_id: topic,
  };
}

function readMessage(m: Message, out: ReadUpdate, botUsername: string | null, edited: boolean): void {
  const topic = topicOf(m);
  const when = at(m.date);
  if (m.forum_topic_created) {
    out.topics.push({ topic_id: m.message_thread_id ?? m.message_id, name: m.forum_topic_created.name, icon_color: m.forum_topic_created.icon_color ?? null, at: when });
  } else if (topic !== null) {
    const created = m.reply_to_message?.forum_topic_created;
    out.topics.push(
      created ? { topic_id: topic, name: created.name, icon_color: created.icon_color ?? null, at: when, seenOnly: true } : { topic_id: topic, at: when, seenOnly: true },
    );
  }
  if (topic !== null && m.forum_topic_edited?.name) out.topics.push({ topic_id: topic, name: m.forum_topic_edited.name, at: when });
  if (topic !== null && m.forum_topic_closed) out.topics.push({ topic_id: topic, closed: true, at: when });
  if (topic !== null && m.forum_topic_reopened) out.topics.push({ topic_id: topic, closed: false, at: when });

  for (const u of m.new_chat_members ?? []) out.presence.push({ telegram_user_id: u.id, username: u.username ?? null, is_bot: u.is_bot, status: 'member', at: when });
  if (m.left_chat_member) {
    const u = m.left_chat_member;
    out.presence.push({ telegram_user_id: u.id, username: u.username ?? null, is_bot: u.is_bot, status: 'left', at: when });
  }
  if (m.from && !m.left_chat_member && !edited) {
    out.presence.push({ telegram_user_id: m.from.id, username: m.from.username ?? null, is_bot: m.from.is_bot, status: 'member', at: when });
  }

  const text = m.text ?? m.caption;
  if (text !== undefined && text.length > 0) {
    out.message = {
      chat_id: m.chat.id,
      message_id: m.message_id,
      topic_id: topic,
      reply_to_message_id: m.reply_to_message && m.reply_to_message.message_id !== m.message_thread_id ? m.reply_to_message.message_id : null,
      sender_id: m.from?.id ?? null,
      sender_username: m.from?.username ?? null,
      sender_name: m.from ? displayName(m.from) : null,
      sender_is_bot: m.from?.is_bot ?? false,
      text,
      sent_at: when,
      edited_at: edited && m.edit_date ? at(m.edit_date) : null,
    };
  }
  if (!edited) out.register = readRegister(m, botUsername);
}

/** What one update means for the room `chatId`. */
export function readUpdate(update: Update, chatId: number, botUsername: string | null): ReadUpdate {
  const bot = botUsername ? botUsername.replace(/^@/, '') : null;
  if (update.message || update.edited_message) {
    const edited = !update.message;
    const m = (update.message ?? update.edited_message)!;
    const out: ReadUpdate = { kind: edited ? 'edited_message' : 'message', inRoom: m.chat.id === chatId, topics: [], presence: [] };
    if (out.inRoom) readMessage(m, out, bot, edited);
    return out;
  }
  if (update.chat_member) {
    const c = update.chat_member;
    const out: ReadUpdate = { kind: 'chat_member', inRoom: c.chat.id === chatId, topics: [], presence: [] };
    if (out.inRoom) {
      const u = c.new_chat_member.user;
      const s = c.new_chat_member;
      const gone = s.status === 'left' || s.status === 'kicked' || (s.status === 'restricted' && s.is_member === false);
      out.presence.push({ telegram_user_id: u.id, username: u.username ?? null, is_bot: u.is_bot, status: gone ? 'left' : 'member', at: at(c.date) });
    }
    return out;
  }
  return { kind: 'other', inRoom: false, topics: [], presence: [] };
}
