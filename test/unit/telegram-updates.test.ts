import { describe, expect, it } from 'vitest';
import { readUpdate, updateSchema } from '../../src/agent-chat/telegram-updates.js';
import { tgBot, tgHuman, UpdateBuilder } from '../support/telegram-server.js';

const CHAT = -1001234567890;
const u = new UpdateBuilder(CHAT);
const read = (update: unknown, bot: string | null = 'squid_news_bot') => readUpdate(updateSchema.parse(update), CHAT, bot);

describe('reading Telegram updates', () => {
  it('a text message in a topic: stored with topic, sender and time', () => {
    const alice = tgHuman('Alice', 'alice_w');
    const up = u.text(alice, 'gm agents', { topicId: 42 });
    const r = read(up);
    expect(r.inRoom).toBe(true);
    expect(r.message).toMatchObject({
      chat_id: CHAT,
      message_id: up.message.message_id,
      topic_id: 42,
      sender_id: alice.id,
      sender_username: 'alice_w',
      sender_name: 'Alice',
      sender_is_bot: false,
      text: 'gm agents',
    });
    expect(r.message!.sent_at.getTime()).toBe(up.message.date * 1000);
    expect(r.topics).toEqual([expect.objectContaining({ topic_id: 42, seenOnly: true })]);
    expect(r.presence).toEqual([expect.objectContaining({ telegram_user_id: alice.id, status: 'member' })]);
  });

  it('message_thread_id without is_topic_message (a reply thread) is not a topic', () => {
    const up = u.text(tgHuman('Bob'), 'reply');
    (up.message as any).message_thread_id = 99;
    expect(read(up).message!.topic_id).toBeNull();
  });

  it('forum topic created / edited / closed', () => {
    const admin = tgHuman('Admin', 'room_admin');
    const { update, topicId } = u.topicCreated(admin, 'Market talk');
    expect(read(update).topics).toEqual([expect.objectContaining({ topic_id: topicId, name: 'Market talk', icon_color: 7322096 })]);
    expect(read(update).message).toBeUndefined();
    expect(read(u.topicEdited(admin, topicId, 'Markets')).topics).toContainEqual(expect.objectContaining({ topic_id: topicId, name: 'Markets' }));
    expect(read(u.topicClosed(admin, topicId)).topics).toContainEqual(expect.objectContaining({ topic_id: topicId, closed: true }));
  });

  it('/register, /register@ThisBot and /register 0x<address> are commands; /register@OtherBot is not', () => {
    const b = tgBot('alpha_agent_bot');
    expect(read(u.text(b, '/register')).register).toMatchObject({ ok: true, telegram_username: 'alpha_agent_bot', telegram_user_id: b.id, is_bot: true, claim_address: null });
    expect(read(u.text(b, '/register@Squid_News_Bot')).register).toMatchObject({ ok: true });
    expect(read(u.text(b, '/register@other_bot')).register).toBeUndefined();
    expect(read(u.text(b, '/register@other_bot'), null).register).toMatchObject({ ok: true });
    const addr = '0x' + 'AB'.repeat(20);
    expect(read(u.text(b, `/register ${addr}`)).register).toMatchObject({ ok: true, claim_address: addr.toLowerCase() });
    expect(read(u.text(b, '/register please')).register).toMatchObject({ ok: false, reason: expect.stringContaining('wallet address') });
    expect(read(u.text(tgHuman('NoName'), '/register')).register).toMatchObject({ ok: false, reason: expect.stringContaining('username') });
    expect(read(u.text(b, 'please /register me')).register).toBeUndefined();
  });

  it('joins, leaves and chat_member changes update presence', () => {
    const b = tgBot('beta_agent_bot');
    expect(read(u.joined(b)).presence).toContainEqual(expect.objectContaining({ telegram_user_id: b.id, status: 'member' }));
    expect(read(u.left(b)).presence).toEqual([expect.objectContaining({ telegram_user_id: b.id, status: 'left' })]);
    const admin = tgHuman('Admin');
    expect(read(u.chatMember(admin, b, 'member', 'kicked')).presence).toEqual([expect.objectContaining({ status: 'left' })]);
    expect(read(u.chatMember(admin, b, 'member', 'restricted')).presence).toEqual([expect.objectContaining({ status: 'member' })]);
  });

  it('photos with captions are stored as their caption; without one, nothing is stored', () => {
    const b = tgBot('gamma_agent_bot');
    expect(read(u.photo(b, 'chart of the day')).message?.text).toBe('chart of the day');
    expect(read(u.photo(b, undefined)).message).toBeUndefined();
  });

  it('other chats are not the room; unknown update kinds are accepted and ignored', () => {
    const b = tgBot('delta_agent_bot');
    expect(read(u.text(b, '/register', { chat: { id: b.id, type: 'private', first_name: 'x' } })).inRoom).toBe(false);
    expect(read({ update_id: 1, callback_query: { id: 'x' } }).kind).toBe('other');
    expect(updateSchema.safeParse({ message: {} }).success).toBe(false);
  });
});
