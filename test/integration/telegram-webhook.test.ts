import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ALLOWED_UPDATES } from '../../src/agent-chat/telegram-bot-api.js';
import { startRig, WEBHOOK_SECRET, type Rig } from '../support/agent-chat.js';
import request from '../support/request.js';
import { tgBot, tgHuman } from '../support/telegram-server.js';

let rig: Rig;
const alice = tgHuman('Alice', 'alice_w');
const scout = tgBot('scout_agent_bot');
let topicId: number;

beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.close());

const history = (qs = '') => rig.http.get(`/api/v1/agent-chat/history/${qs}`);

describe('webhook', () => {
  it('was registered with setWebhook: our URL, the secret token and the update types we read', async () => {
    const call = rig.tg.callsOf('setWebhook')[0];
    expect(call.params.url).toBe(`${await rig.http.base}/telegram/webhook`);
    expect(call.params.secret_token).toBe(WEBHOOK_SECRET);
    expect(call.params.allowed_updates).toEqual(ALLOWED_UPDATES);
  });

  it('refuses updates without the secret header, or with a wrong one, and stores nothing', async () => {
    const up = rig.tg.updates.text(alice, 'forged message');
    for (const secret of [null, 'wrong-secret-wrong-secret']) {
      const r = await rig.tg.deliver(up, { secret });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('webhook_secret_invalid');
    }
    expect((await history()).body.messages.map((m: any) => m.text)).not.toContain('forged message');
  });

  it('stores a message once even when Telegram delivers it twice (update_id)', async () => {
    const up = rig.tg.updates.text(alice, 'gm agents, BTC looks strong today');
    const first = await rig.tg.deliver(up);
    expect(first).toEqual({ status: 200, body: { ok: true, duplicate: false } });
    const again = await rig.tg.deliver(up);
    expect(again.body.duplicate).toBe(true);
    const h = await history();
    expect(h.body.messages.filter((m: any) => m.id === up.message.message_id)).toHaveLength(1);
    expect(h.body.messages[0]).toEqual({
      id: up.message.message_id,
      topic: null,
      reply_to_message_id: null,
      sender: { username: 'alice_w', display_name: 'Alice', is_bot: false, agent: null },
      text: 'gm agents, BTC looks strong today',
      sent_at: new Date(up.message.date * 1000).toISOString(),
      edited_at: null,
    });
  });

  it('tracks forum topics: created, messages in them, renamed, closed', async () => {
    const created = rig.tg.updates.topicCreated(alice, 'Market talk');
    topicId = created.topicId;
    expect((await rig.tg.deliver(created.update)).status).toBe(200);
    await rig.tg.deliver(rig.tg.updates.text(scout, 'ETH gas is low right now', { topicId }));
    await rig.tg.deliver(rig.tg.updates.text(alice, 'agreed, tokens are moving', { topicId }));
    let t = (await rig.http.get('/api/v1/agent-chat/topics/')).body.topics.find((x: any) => x.id === topicId);
    expect(t).toMatchObject({ name: 'Market talk', closed: false, message_count: 2, icon_color: 7322096 });
    await rig.tg.deliver(rig.tg.updates.topicEdited(alice, topicId, 'Markets'));
    await rig.tg.deliver(rig.tg.updates.topicClosed(alice, topicId));
    t = (await rig.http.get('/api/v1/agent-chat/topics/')).body.topics.find((x: any) => x.id === topicId);
    expect(t).toMatchObject({ name: 'Markets', closed: true, message_count: 2 });
    const inTopic = await history(`?topic=${topicId}`);
    expect(inTopic.body.messages.map((m: any) => m.text)).toEqual(['agreed, tokens are moving', 'ETH gas is low right now']);
    expect(inTopic.body.messages[0].topic).toEqual({ id: topicId, name: 'Markets' });
    const general = await history('?topic=general');
    expect(general.body.messages.every((m: any) => m.topic === null)).toBe(true);
  });

  it("learns a topic name from a reply to the topic's creation message", async () => {
    const replyTo = { message_id: 777_001, forum_topic_created: { name: 'Old topic', icon_color: 16766590 } };
    await rig.tg.deliver(rig.tg.updates.text(alice, 'hello old topic', { topicId: 777_001, replyTo }));
    const t = (await rig.http.get('/api/v1/agent-chat/topics/')).body.topics.find((x: any) => x.id === 777_001);
    expect(t.name).toBe('Old topic');
  });

  it('applies edits to the stored text', async () => {
    const up = rig.tg.updates.text(alice, 'typo mesage');
    await rig.tg.deliver(up);
    await rig.tg.deliver(rig.tg.updates.edited(up, 'typo message, fixed'));
    const m = (await history(`?username=alice_w`)).body.messages.find((x: any) => x.id === up.message.message_id);
    expect(m.text).toBe('typo message, fixed');
    expect(m.edited_at).not.toBeNull();
  });

  it('ignores other chats (a private chat with the bot) but acknowledges them', async () => {
    const up = rig.tg.updates.text(alice, 'private hello', { chat: { id: alice.id, type: 'private', first_name: 'Alice' } });
    expect((await rig.tg.deliver(up)).status).toBe(200);
    expect((await history('?limit=100')).body.messages.map((m: any) => m.text)).not.toContain('private hello');
  });

  it('rejects a body that is not an Update with 400', async () => {
    const r = await rig.tg.deliver({ message: { text: 'no update id' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
  });

  it('answers 503 telegram_not_configured when the secret is not set', async () => {
    const bare = request(createApp({ ...rig.deps, config: { ...rig.deps.config, TELEGRAM_WEBHOOK_SECRET: undefined } }));
    const r = await bare.post('/telegram/webhook', rig.tg.updates.text(alice, 'x'), { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('telegram_not_configured');
    await bare.close();
  });

  it('acknowledges /register in the room by replying in the same topic', async () => {
    const bot = tgBot('acker_agent_bot');
    const up = rig.tg.updates.text(bot, `/register@${rig.tg.bot.username}`, { topicId });
    await rig.tg.deliver(up);
    const call = await rig.tg.waitForCall('sendMessage', (c) => c.params.reply_parameters?.message_id === up.message.message_id);
    expect(call.params.text).toContain('@acker_agent_bot');
    expect(call.params.text).toContain('10 minutes');
    expect(call.params.message_thread_id).toBe(topicId);
  });
});

describe('public reads', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) await rig.tg.deliver(rig.tg.updates.text(tgHuman(`P${i}`, `paging_user_${i}`), `paging message number ${i}`));
  });

  it('history: limit is bounded (1-100), before_id pages back, no credentials needed', async () => {
    for (const bad of ['0', '101', 'x', '2.5']) {
      const r = await history(`?limit=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error.details.fields[0].path).toBe('query.limit');
    }
    const p1 = await history('?limit=2');
    expect(p1.status).toBe(200);
    expect(p1.headers.get('ratelimit-limit')).toBe('60');
    expect(p1.body.messages.map((m: any) => m.text)).toEqual(['paging message number 4', 'paging message number 3']);
    const p2 = await history(`?limit=2&before_id=${p1.body.next_before_id}`);
    expect(p2.body.messages.map((m: any) => m.text)).toEqual(['paging message number 2', 'paging message number 1']);
    expect((await history('?unknown=1')).body.error.details.fields[0].code).toBe('unknown_field');
  });

  it('history: since/before filter by time; username by sender (with or without @)', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await history(`?since=${encodeURIComponent(future)}`)).body.count).toBe(0);
    expect((await history(`?before=${encodeURIComponent(future)}&limit=1`)).body.count).toBe(1);
    expect((await history('?since=yesterday')).status).toBe(400);
    const byUser = await history('?username=@Paging_User_2');
    expect(byUser.body.messages.map((m: any) => m.text)).toEqual(['paging message number 2']);
    expect((await history('?username=a')).status).toBe(400);
  });

  it('search: full text with stemming, minimum 3 characters, best match first', async () => {
    const r = await rig.http.get('/api/v1/agent-chat/search/?q=token');
    expect(r.status).toBe(200);
    expect(r.body.messages.map((m: any) => m.text)).toContain('agreed, tokens are moving');
    expect((await rig.http.get('/api/v1/agent-chat/search/?q=%22gas%20is%20low%22')).body.messages.map((m: any) => m.text)).toEqual(['ETH gas is low right now']);
    expect((await rig.http.get('/api/v1/agent-chat/search/?q=zzzqqq')).body.count).toBe(0);
    const short = await rig.http.get('/api/v1/agent-chat/search/?q=ab');
    expect(short.status).toBe(400);
    expect(short.body.error.details.fields[0].path).toBe('query.q');
    expect((await rig.http.get('/api/v1/agent-chat/search/')).body.error.details.fields[0].code).toBe('required');
  });

  it('participants: senders active in the window, with counts', async () => {
    const r = await rig.http.get('/api/v1/agent-chat/participants/');
    expect(r.body.window_hours).toBe(24);
    const a = r.body.participants.find((p: any) => p.username === 'alice_w');
    expect(a).toMatchObject({ display_name: 'Alice', is_bot: false, agent: null });
    expect(a.message_count).toBeGreaterThanOrEqual(4);
    expect(r.body.participants.find((p: any) => p.username === 'scout_agent_bot')).toMatchObject({ is_bot: true, message_count: 1 });
    expect((await rig.http.get('/api/v1/agent-chat/participants/?hours=169')).status).toBe(400);
  });

  it('search is limited to 30 requests per minute per IP', async () => {
    let last;
    for (let i = 0; i < 31; i++) last = await rig.http.get('/api/v1/agent-chat/search/?q=message');
    expect(last!.status).toBe(429);
    expect(last!.body.error.code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
