/** Random input to the agent-chat endpoints and the webhook never produces a 5xx. */
import fc from '../support/property.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRig, WEBHOOK_SECRET, type Rig } from '../support/agent-chat.js';
import { sessionFor, type Session } from '../support/auth.js';
import { tgBot } from '../support/telegram-server.js';

let rig: Rig;
let agent: Session;
const secretHeader = { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET };

beforeAll(async () => {
  rig = await startRig({ ANON_DAILY_QUOTA: '1000000', SESSION_DAILY_QUOTA: '1000000', TRUST_PROXY: 'true' }, { workers: false });
  agent = await sessionFor(rig.deps.db, rig.deps.config.JWT_SECRET, { accountType: 'bot' });
  const bot = tgBot('fuzzed_agent_bot');
  await rig.tg.deliver(rig.tg.updates.text(bot, '/register'));
  expect((await rig.http.post('/api/v1/agent-chat/register/', { operator: 'o', model_name: 'm', telegram_bot_username: bot.username }, agent.bearer)).status).toBe(201);
});
afterAll(() => rig.close());

const junk = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant('\u0000'), fc.constant(''));
const anyJson = fc.jsonValue({ maxDepth: 3 });
let ip = 0;
// A fresh client address per request keeps the per-IP limits out of the way (TRUST_PROXY is on).
const addr = () => ({ 'x-forwarded-for': `10.77.${Math.floor(++ip / 250) % 250}.${(ip % 250) + 1}` });

function ok(status: number) {
  expect(status).toBeLessThan(500);
}

it('webhook: random updates (valid secret) never 5xx', async () => {
  const text = fc.oneof(junk, fc.constant('/register'), fc.constant('/register 0xzz'));
  const update = fc.record(
    {
      update_id: fc.oneof(fc.integer({ min: -5, max: 2 ** 40 }), fc.constant(2 ** 53)),
      message: fc.record(
        {
          message_id: fc.integer({ min: -10, max: 2 ** 40 }),
          date: fc.oneof(fc.integer({ min: -1, max: 2 ** 33 }), fc.constant(1.5)),
          chat: fc.oneof(fc.constant({ id: rig.tg.chatId, type: 'supergroup' }), fc.record({ id: fc.integer(), type: junk })),
          from: fc.record({ id: fc.integer({ min: 1, max: 2 ** 40 }), is_bot: fc.boolean(), first_name: junk, username: junk }, { requiredKeys: ['id'] }),
          text,
          caption: junk,
          message_thread_id: fc.integer(),
          is_topic_message: fc.boolean(),
          forum_topic_created: fc.record({ name: junk, icon_color: fc.integer() }),
          forum_topic_edited: fc.record({ name: junk }),
          new_chat_members: fc.array(fc.record({ id: fc.integer({ min: 1, max: 2 ** 40 }), is_bot: fc.boolean(), first_name: junk })),
          left_chat_member: fc.record({ id: fc.integer({ min: 1, max: 2 ** 40 }), is_bot: fc.boolean(), first_name: junk }),
        },
        { requiredKeys: ['message_id', 'date', 'chat'] },
      ),
      extra: anyJson,
    },
    { requiredKeys: ['update_id'] },
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(update, anyJson), async (body) => {
      const r = await rig.http.post('/telegram/webhook', body, secretHeader);
      ok(r.status);
    }),
    { numRuns: 200 },
  );
});

it('register, handshake finish, staff and read endpoints: random input never 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(anyJson, junk, junk, junk, async (body, a, b, c) => {
      ok((await rig.http.post('/api/v1/agent-chat/register/', body, { ...agent.bearer, ...addr() })).status);
      ok((await rig.http.post('/api/v1/agent-chat/register/', { operator: a, model_name: b, telegram_bot_username: c }, { ...agent.bearer, ...addr() })).status);
      ok(
        (
          await rig.http.post(
            '/api/v1/agent-chat/handshake/finish/',
            { challenge_id: `hs_${encodeURIComponent(a)}`, responses: { echo: a, refuse_transfer: b, refuse_authority: c, rules_ack: a } },
            { ...agent.bearer, ...addr() },
          )
        ).status,
      );
      ok((await rig.http.post('/api/v1/agent-chat/handshake/finish/', body, { ...agent.bearer, ...addr() })).status);
      const q = new URLSearchParams({ limit: a, before_id: b, since: c, topic: a, username: b }).toString();
      ok((await rig.http.get(`/api/v1/agent-chat/history/?${q}`, addr())).status);
      ok((await rig.http.get(`/api/v1/agent-chat/search/?q=${encodeURIComponent(a + b + c)}`, addr())).status);
    }),
    { numRuns: 50 },
  );
});
