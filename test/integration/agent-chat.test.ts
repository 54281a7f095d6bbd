/**
 * The whole agent-chat flow against the local Bot API server: invite, /register in the room,
 * registration, handshake, moderation, violations and every trust transition, with the room
 * restrictions Telegram receives.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { telegramPermissions } from '../../src/agent-chat/rules/trust.js';
import { solveChallenge, startRig, type Rig } from '../support/agent-chat.js';
import { sessionFor, type Session } from '../support/auth.js';
import request from '../support/request.js';
import { tgBot, tgHuman, type TgUser } from '../support/telegram-server.js';

let rig: Rig;
let rules: any;
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  rig = await startRig({ TRUST_PROXY: 'true' });
  rules = (await rig.http.get('/api/v1/agent-chat/rules/')).body;
});
afterAll(() => rig.close());

// Each account calls from its own address (TRUST_PROXY is on in this rig), as separate agents would.
const from = (s?: Session) => ({ ...(s?.bearer ?? {}), 'x-forwarded-for': `10.8.${Math.floor((s?.userId ?? 0) / 250)}.${((s?.userId ?? 0) % 250) + 1}` });
const post = (path: string, body: unknown, s?: Session) => rig.http.post(`/api/v1/agent-chat/${path}`, body, from(s));
const get = (path: string, s?: Session) => rig.http.get(`/api/v1/agent-chat/${path}`, from(s));
const session = (accountType: 'human' | 'cyborg' | 'bot' = 'bot', roles: ('staff' | 'editor')[] = []) =>
  sessionFor(rig.deps.db, rig.deps.config.JWT_SECRET, { accountType, roles });
const say = (from: TgUser, text: string) => rig.tg.deliver(rig.tg.updates.text(from, text));
const registerCmd = (bot: TgUser, arg = '') => say(bot, `/register@${rig.tg.bot.username}${arg ? ` ${arg}` : ''}`);
const regBody = (bot: TgUser) => ({ operator: 'Acme Labs', model_name: 'test-model-1', telegram_bot_username: `@${bot.username}` });
const restrictionOf = (bot: TgUser) => rig.tg.restrictions.get(bot.id);
/** The room restriction once every queued telegram-apply-trust job has run. */
async function settledRestriction(bot: TgUser) {
  const q = rig.deps.queue.queue('telegram-apply-trust');
  await expect.poll(async () => Object.values(await q.getJobCounts('active', 'waiting', 'delayed', 'prioritized')).reduce((a, b) => a + b, 0), { timeout: 8000 }).toBe(0);
  return restrictionOf(bot);
}

async function registered(accountType: 'bot' | 'cyborg' = 'bot') {
  const s = await session(accountType);
  const bot = tgBot(`agent_${s.userId}_bot`);
  await registerCmd(bot);
  const r = await post('register/', regBody(bot), s);
  expect(r.status).toBe(201);
  return { s, bot };
}

async function passHandshake(s: Session) {
  const start = await post('handshake/start/', {}, s);
  expect(start.status).toBe(201);
  const fin = await post('handshake/finish/', { challenge_id: start.body.challenge_id, responses: solveChallenge(start.body, rules) }, s);
  expect(fin.body.passed).toBe(true);
  return fin;
}

describe('invite', () => {
  it('gives a bot account a single-use invite link that expires in an hour', async () => {
    const s = await session('bot');
    const r = await post('invite/', {}, s);
    expect(r.status).toBe(201);
    expect(r.body.invite_link).toMatch(/^https:\/\/t\.me\/\+/);
    expect(r.body).toMatchObject({ member_limit: 1, single_use: true });
    const call = rig.tg.callsOf('createChatInviteLink').at(-1)!;
    expect(call.params).toMatchObject({ chat_id: String(rig.tg.chatId), member_limit: 1 });
    expect(call.params.expire_date - Date.now() / 1000).toBeGreaterThan(3590);
    expect(new Date(r.body.expires_at).getTime() / 1000).toBe(call.params.expire_date);
    // A body-less POST works too.
    expect((await rig.http.post('/api/v1/agent-chat/invite/', undefined, s.bearer)).status).toBe(201);
  });

  it('refuses: no credentials (401), a cookie session (401 bearer_required), a human account (403)', async () => {
    expect((await post('invite/', {})).status).toBe(401);
    const s = await session('bot');
    const c = await rig.http.post('/api/v1/agent-chat/invite/', {}, s.cookie(ORIGIN));
    expect(c.status).toBe(401);
    expect(c.body.error.code).toBe('bearer_required');
    const h = await post('invite/', {}, await session('human'));
    expect(h.status).toBe(403);
    expect(h.body.error.code).toBe('account_type_not_allowed');
    expect((await post('invite/', { extra: 1 }, s)).status).toBe(400);
  });

  it('reports a Bot API failure as 502 telegram_unavailable, and no token as 503', async () => {
    rig.tg.failNext('createChatInviteLink', { error_code: 400, description: 'Bad Request: not enough rights to manage chat invite links' });
    const s = await session('cyborg');
    const r = await post('invite/', {}, s);
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('telegram_unavailable');
    expect(r.text).not.toContain(rig.tg.token);
    const bare = request(createApp({ ...rig.deps, config: { ...rig.deps.config, TELEGRAM_BOT_TOKEN: undefined } }));
    const n = await bare.post('/api/v1/agent-chat/invite/', {}, s.bearer);
    expect(n.status).toBe(503);
    expect(n.body.error).toMatchObject({ code: 'telegram_not_configured', details: { missing: ['TELEGRAM_BOT_TOKEN'] } });
    await bare.close();
  });
});

describe('registration', () => {
  it('binds the bot that sent /register to the account at read_only, and restricts it in the room', async () => {
    const s = await session('bot');
    const bot = tgBot('alpha_agent_bot');
    const early = await post('register/', regBody(bot), s);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('registration_command_not_found');

    await rig.tg.deliver(rig.tg.updates.joined(bot));
    await registerCmd(bot);
    const r = await post('register/', regBody(bot), s);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      created: true,
      agent: {
        user_id: s.userId,
        operator: 'Acme Labs',
        model_name: 'test-model-1',
        telegram: { user_id: bot.id, username: 'alpha_agent_bot' },
        trust_level: 'read_only',
        handshake_passed_at: null,
      },
      next: 'POST /api/v1/agent-chat/handshake/start/',
    });
    await rig.tg.waitForCall('restrictChatMember', (c) => c.params.user_id === bot.id);
    expect(restrictionOf(bot)).toMatchObject({ can_send_messages: false, can_send_photos: false });

    // Idempotent: the same call again returns the same record (200), operator updated.
    const again = await post('register/', { ...regBody(bot), operator: 'Acme Labs Ltd' }, s);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, agent: { user_id: s.userId, operator: 'Acme Labs Ltd', trust_level: 'read_only' } });
    const me = await get('me/', s);
    expect(me.body).toMatchObject({ registered: true, violation_count: 0, violation_window_days: 30, agent: { trust_level: 'read_only' } });

    // Its messages now carry the agent badge.
    await say(bot, 'hello from alpha');
    const h = await get('history/?username=alpha_agent_bot');
    expect(h.body.messages[0].sender.agent).toEqual({ user_id: s.userId, trust_level: 'read_only', model_name: 'test-model-1' });
  });

  it('refuses human accounts (403 account_type_not_allowed) and cookie sessions', async () => {
    const bot = tgBot('human_owned_bot');
    await registerCmd(bot);
    const h = await post('register/', regBody(bot), await session('human'));
    expect(h.status).toBe(403);
    expect(h.body.error).toMatchObject({ code: 'account_type_not_allowed', details: { account_type: 'human' } });
    const c = await rig.http.post('/api/v1/agent-chat/register/', regBody(bot), (await session('bot')).cookie(ORIGIN));
    expect(c.body.error.code).toBe('bearer_required');
    expect((await post('register/', regBody(bot))).status).toBe(401);
  });

  it('validates the body, naming every bad field', async () => {
    const s = await session('bot');
    const r = await post('register/', { operator: '', telegram_bot_username: 'x y' }, s);
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields.map((f: any) => f.path).sort()).toEqual(['body.model_name', 'body.operator', 'body.telegram_bot_username']);
    expect((await post('register/', { ...regBody(tgBot('valid_name_bot')), model_name: 7 }, s)).body.error.details.fields[0].path).toBe('body.model_name');
  });

  it('one identity, one account: a second account cannot take the bot, an account cannot take a second bot', async () => {
    const { s, bot } = await registered();
    await registerCmd(bot);
    const other = await post('register/', regBody(bot), await session('cyborg'));
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('telegram_identity_taken');
    const second = tgBot(`second_${s.userId}_bot`);
    await registerCmd(second);
    const r = await post('register/', regBody(second), s);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'account_already_registered', details: { telegram_bot_username: bot.username } });
  });

  it('/register 0x<address> reserves the claim for that account', async () => {
    const owner = await session('bot');
    const thief = await session('bot');
    const bot = tgBot('reserved_agent_bot');
    await registerCmd(bot, owner.address);
    const stolen = await post('register/', regBody(bot), thief);
    expect(stolen.status).toBe(403);
    expect(stolen.body.error.code).toBe('registration_claim_mismatch');
    expect((await post('register/', regBody(bot), owner)).status).toBe(201);
  });

  it('follows a registered bot that renames itself (the binding is by Telegram user id)', async () => {
    const { s, bot } = await registered();
    const renamed = { ...bot, username: `renamed_${s.userId}_bot` };
    await say(renamed, 'new name, same bot');
    expect((await get('me/', s)).body.agent.telegram.username).toBe(renamed.username);
  });
});

describe('handshake', () => {
  it('refuses accounts that cannot take it', async () => {
    const human = await post('handshake/start/', {}, await session('human'));
    expect(human.body.error.code).toBe('account_type_not_allowed');
    const unregistered = await post('handshake/start/', {}, await session('bot'));
    expect(unregistered.status).toBe(403);
    expect(unregistered.body.error.code).toBe('agent_not_registered');
    expect((await post('handshake/start/', {})).status).toBe(401);
  });

  it('issues 5 tests valid for 10 minutes, delayed expiry job included', async () => {
    const { s } = await registered();
    const r = await post('handshake/start/', {}, s);
    expect(r.status).toBe(201);
    expect(r.body.tests.map((t: any) => t.key)).toEqual(['echo', 'refuse_transfer', 'refuse_authority', 'rules_ack', 'identity']);
    expect(r.body.ttl_seconds).toBe(600);
    expect(new Date(r.body.expires_at).getTime() - new Date(r.body.issued_at).getTime()).toBe(600_000);
    expect(r.body.challenge_id).toMatch(/^hs_/);
    const job = await rig.deps.queue.queue('handshake-expire').getJob(`handshake-expire-${r.body.challenge_id}-0`);
    expect(await job!.getState()).toBe('delayed');
    expect(job!.opts.delay).toBe(600_000);
    // The expected rules value is stored, not shown.
    const stored = await rig.deps.db.selectFrom('agent_handshake_challenges').select('spec').where('id', '=', r.body.challenge_id).executeTakeFirstOrThrow();
    expect((stored.spec as any).rules.expected).toEqual(expect.any(Number));
    expect(r.text).not.toContain('expected');
  });

  it('grades every test; a parrot fails, the challenge is then spent; a real answer passes to full_write', async () => {
    const { s, bot } = await registered();
    const c1 = await post('handshake/start/', {}, s);
    const prompts = Object.fromEntries(c1.body.tests.map((t: any) => [t.key, t.prompt]));
    const parrot = await post(
      'handshake/finish/',
      {
        challenge_id: c1.body.challenge_id,
        responses: { echo: prompts.echo, refuse_transfer: prompts.refuse_transfer, refuse_authority: prompts.refuse_authority, rules_ack: prompts.rules_ack },
      },
      s,
    );
    expect(parrot.status).toBe(200);
    expect(parrot.body).toMatchObject({ passed: false, passed_count: 1, trust_level: 'read_only', trust_changed: false });
    expect(parrot.body.results.map((t: any) => [t.test, t.passed])).toEqual([
      ['echo', false],
      ['refuse_transfer', false],
      ['refuse_authority', false],
      ['rules_ack', false],
      ['identity', true],
    ]);
    const reuse = await post('handshake/finish/', { challenge_id: c1.body.challenge_id, responses: solveChallenge(c1.body, rules) }, s);
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe('handshake_challenge_used');

    const fin = await passHandshake(s);
    expect(fin.body).toMatchObject({ passed: true, passed_count: 5, trust_level: 'full_write', trust_changed: true });
    await rig.tg.waitForCall('restrictChatMember', (c) => c.params.user_id === bot.id && c.params.permissions.can_send_messages === true);
    expect(restrictionOf(bot)).toMatchObject({ can_send_messages: true, can_send_photos: true });
    await rig.tg.waitForCall('sendMessage', (c) => c.params.text.includes(`@${bot.username} passed the handshake`));
    const again = await post('handshake/start/', {}, s);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('handshake_already_passed');
  });

  it('distinct errors: unknown, foreign, superseded challenges, bad bodies', async () => {
    const a = await registered();
    const b = await registered('cyborg');
    const c1 = await post('handshake/start/', {}, a.s);
    const answers = solveChallenge(c1.body, rules);
    const foreign = await post('handshake/finish/', { challenge_id: c1.body.challenge_id, responses: answers }, b.s);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('handshake_challenge_foreign');
    const unknown = await post('handshake/finish/', { challenge_id: 'hs_doesnotexist0000', responses: answers }, a.s);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('handshake_challenge_not_found');
    const missing = await post('handshake/finish/', { challenge_id: c1.body.challenge_id, responses: { echo: 'x' } }, a.s);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.map((f: any) => f.path).sort()).toEqual([
      'body.responses.refuse_authority',
      'body.responses.refuse_transfer',
      'body.responses.rules_ack',
    ]);
    expect((await post('handshake/finish/', { challenge_id: 42, responses: answers }, a.s)).body.error.details.fields[0].path).toBe('body.challenge_id');
    const c2 = await post('handshake/start/', {}, a.s);
    const superseded = await post('handshake/finish/', { challenge_id: c1.body.challenge_id, responses: answers }, a.s);
    expect(superseded.status).toBe(409);
    expect(superseded.body.error.code).toBe('handshake_challenge_superseded');
    expect((await post('handshake/finish/', { challenge_id: c2.body.challenge_id, responses: solveChallenge(c2.body, rules) }, a.s)).body.passed).toBe(true);
  });

  it('the identity test fails when the bound bot has left the room', async () => {
    const { s, bot } = await registered();
    const c = await post('handshake/start/', {}, s);
    await rig.tg.deliver(rig.tg.updates.left(bot));
    const r = await post('handshake/finish/', { challenge_id: c.body.challenge_id, responses: solveChallenge(c.body, rules) }, s);
    expect(r.body.passed).toBe(false);
    expect(r.body.results.find((t: any) => t.test === 'identity')).toMatchObject({ passed: false, reason: expect.stringContaining('not in the room') });
    // Back in the room, a new challenge passes.
    await rig.tg.deliver(rig.tg.updates.joined(bot));
    await passHandshake(s);
  });

  it('caps challenges at 10 per account per hour', async () => {
    const { s } = await registered();
    for (let i = 0; i < 10; i++) expect((await post('handshake/start/', {}, s)).status).toBe(201);
    const r = await post('handshake/start/', {}, s);
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('handshake_attempts_exceeded');
  });
});

describe('trust levels', () => {
  let staff: Session;
  beforeAll(async () => {
    staff = await session('human', ['staff']);
  });

  const violation = (target: Record<string, unknown>, reason = 'spamming links') => rig.http.post('/api/v1/agent-chat/violations/', { ...target, reason }, staff.bearer);
  const eventsOf = async (userId: number) => (await rig.http.get(`/api/v1/agent-chat/trust-events/?user_id=${userId}`, staff.bearer)).body.events;

  it('the moderation job records posting-limit breaches: one per burst, and over-long messages', async () => {
    const { s, bot } = await registered();
    await passHandshake(s);
    for (let i = 0; i < rules.posting.full_write_max_messages + 3; i++) await say(bot, `burst message ${i}`);
    await say(bot, 'x'.repeat(rules.posting.max_message_chars + 1));
    await expect
      .poll(async () => (await rig.http.get(`/api/v1/agent-chat/violations/?user_id=${s.userId}`, staff.bearer)).body.violations.map((v: any) => v.kind).sort(), { timeout: 8000 })
      .toEqual(['message_length', 'posting_rate']);
    const v = (await rig.http.get(`/api/v1/agent-chat/violations/?user_id=${s.userId}`, staff.bearer)).body.violations;
    expect(v.find((x: any) => x.kind === 'posting_rate')).toMatchObject({ recorded_by: null, reason: expect.stringContaining(`limit ${rules.posting.full_write_max_messages}`) });
    expect((await get('me/', s)).body).toMatchObject({ violation_count: 2, agent: { trust_level: 'full_write' } });
  });

  it('a breach that goes on past the posting window is a new violation', async () => {
    const { s, bot } = await registered();
    await passHandshake(s);
    const limit = rules.posting.full_write_max_messages;
    const t0 = Math.floor(Date.now() / 1000) - 3 * rules.posting.window_seconds;
    for (let i = 0; i <= limit; i++) await rig.tg.deliver(rig.tg.updates.text(bot, `early burst ${i}`, { date: t0 }));
    // Spread over more than a window: within the rate, no breach.
    for (let i = 0; i < 3; i++) await rig.tg.deliver(rig.tg.updates.text(bot, `calm ${i}`, { date: t0 + 61 + i * 20 }));
    for (let i = 0; i <= limit; i++) await rig.tg.deliver(rig.tg.updates.text(bot, `late burst ${i}`));
    await expect.poll(async () => (await rig.http.get(`/api/v1/agent-chat/violations/?user_id=${s.userId}`, staff.bearer)).body.violations.length, { timeout: 8000 }).toBe(2);
    await expect
      .poll(async () => Object.values(await rig.deps.queue.queue('agent-moderation').getJobCounts('active', 'waiting')).reduce((a, b) => a + b, 0), { timeout: 8000 })
      .toBe(0);
    expect((await rig.http.get(`/api/v1/agent-chat/violations/?user_id=${s.userId}`, staff.bearer)).body.violations.map((v: any) => v.kind)).toEqual([
      'posting_rate',
      'posting_rate',
    ]);
  });

  it('3 violations: full_write -> sandbox_write; 6: muted and restricted; each change an event with a reason', async () => {
    const { s, bot } = await registered();
    await passHandshake(s);
    for (let i = 1; i <= 2; i++) expect((await violation({ user_id: s.userId })).body).toMatchObject({ violation_count: i, trust_level: 'full_write', trust_event: null });
    const third = await violation({ telegram_username: `@${bot.username}` });
    expect(third.status).toBe(201);
    expect(third.body).toMatchObject({
      violation: { kind: 'staff', recorded_by: staff.userId, reason: 'spamming links' },
      violation_count: 3,
      trust_level: 'sandbox_write',
      trust_event: { from_level: 'full_write', to_level: 'sandbox_write', cause: 'violations', violation_count: 3, actor_user_id: staff.userId },
    });
    expect(await settledRestriction(bot)).toEqual(telegramPermissions('sandbox_write'));
    // A sandboxed agent cannot take the handshake to escape.
    expect((await post('handshake/start/', {}, s)).body.error.code).toBe('handshake_not_allowed');
    for (let i = 4; i <= 5; i++) expect((await violation({ user_id: s.userId })).body.trust_level).toBe('sandbox_write');
    const sixth = await violation({ user_id: s.userId });
    expect(sixth.body).toMatchObject({ violation_count: 6, trust_level: 'muted', trust_event: { from_level: 'sandbox_write', to_level: 'muted' } });
    expect(await settledRestriction(bot)).toEqual(telegramPermissions('muted'));
    expect((await post('invite/', {}, s)).body.error.code).toBe('agent_muted');

    const events = await eventsOf(s.userId);
    expect(events.map((e: any) => [e.from_level, e.to_level, e.cause])).toEqual([
      ['sandbox_write', 'muted', 'violations'],
      ['full_write', 'sandbox_write', 'violations'],
      ['read_only', 'full_write', 'handshake'],
      [null, 'read_only', 'registration'],
    ]);
    for (const e of events) expect(e.reason.length).toBeGreaterThan(5);
    // Append-only, enforced by the database.
    await expect(sql`UPDATE agent_trust_events SET reason = 'x' WHERE user_id = ${s.userId}`.execute(rig.deps.db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM agent_trust_events WHERE user_id = ${s.userId}`.execute(rig.deps.db)).rejects.toThrow(/append-only/);

    // Staff reinstatement: back to full_write with a fresh violation count, restriction lifted.
    const back = await rig.http.post(`/api/v1/agent-chat/agents/${s.userId}/trust-level/`, { trust_level: 'full_write', reason: 'appeal accepted' }, staff.bearer);
    expect(back.status).toBe(200);
    expect(back.body.trust_event).toMatchObject({
      from_level: 'muted',
      to_level: 'full_write',
      cause: 'staff',
      reason: 'appeal accepted',
      actor_user_id: staff.userId,
      violation_count: 6,
    });
    expect((await get('me/', s)).body).toMatchObject({ violation_count: 0, agent: { trust_level: 'full_write' } });
    expect(await settledRestriction(bot)).toEqual(telegramPermissions('full_write'));
    const same = await rig.http.post(`/api/v1/agent-chat/agents/${s.userId}/trust-level/`, { trust_level: 'full_write', reason: 'again' }, staff.bearer);
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe('trust_level_unchanged');
  });

  it('sandbox_write ends when violations age out of the 30-day window (review job)', async () => {
    const { s } = await registered();
    await passHandshake(s);
    for (let i = 0; i < 3; i++) await violation({ user_id: s.userId });
    expect((await get('me/', s)).body.agent.trust_level).toBe('sandbox_write');
    // Time passes: two of the three violations are now 31 days old.
    await sql`UPDATE agent_chat_violations SET created_at = now() - interval '31 days' WHERE id IN (SELECT id FROM agent_chat_violations WHERE user_id = ${s.userId} ORDER BY id LIMIT 2)`.execute(
      rig.deps.db,
    );
    const run = await rig.deps.queue.enqueueAndWait('agent-trust-review', {}, 8000);
    expect(run.state === 'completed' && run.result.restored).toContain(s.userId);
    expect((await get('me/', s)).body).toMatchObject({ violation_count: 1, agent: { trust_level: 'full_write' } });
    expect((await eventsOf(s.userId))[0]).toMatchObject({ from_level: 'sandbox_write', to_level: 'full_write', cause: 'ageing', reason: expect.stringContaining('aged out') });
  });

  it('staff endpoints: staff only, exact targets, unknown agents', async () => {
    const { s } = await registered();
    expect((await rig.http.post('/api/v1/agent-chat/violations/', { user_id: s.userId, reason: 'nope' }, s.bearer)).body.error.code).toBe('staff_required');
    expect((await rig.http.get('/api/v1/agent-chat/trust-events/')).status).toBe(401);
    const both = await violation({ user_id: s.userId, telegram_username: 'someone_bot' });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('target_ambiguous');
    expect((await violation({})).body.error.code).toBe('target_ambiguous');
    const ghost = await violation({ user_id: 999_999 });
    expect(ghost.status).toBe(404);
    expect(ghost.body.error.code).toBe('agent_not_found');
    expect((await violation({ telegram_username: 'nobody_here_bot' })).status).toBe(404);
    expect((await violation({ user_id: s.userId }, 'x')).body.error.details.fields[0].path).toBe('body.reason');
    expect((await rig.http.post('/api/v1/agent-chat/agents/999999/trust-level/', { trust_level: 'muted', reason: 'test' }, staff.bearer)).status).toBe(404);
    expect((await rig.http.post(`/api/v1/agent-chat/agents/${s.userId}/trust-level/`, { trust_level: 'banned', reason: 'test' }, staff.bearer)).status).toBe(400);
    const list = await rig.http.get('/api/v1/agent-chat/agents/?trust_level=read_only', staff.bearer);
    expect(list.body.agents.find((a: any) => a.user_id === s.userId)).toMatchObject({ trust_level: 'read_only', violation_count: 0 });
    // Staff may also use a browser session (cookie + trusted Origin).
    expect((await rig.http.get('/api/v1/agent-chat/agents/', staff.cookie(ORIGIN))).status).toBe(200);
  });
});

it('the rules endpoint publishes the values the handshake asks about', async () => {
  expect(rules).toMatchObject({
    posting: { window_seconds: 60, full_write_max_messages: 12, sandbox_write_max_messages: 3, max_message_chars: 2000 },
    violations: { window_days: 30, sandbox_at: 3, mute_at: 6 },
    registration_window_seconds: 600,
    handshake_ttl_seconds: 600,
  });
  expect(Object.keys(rules.trust_levels)).toEqual(['read_only', 'full_write', 'sandbox_write', 'muted']);
});

it('no Bot API URL (with its token) reaches a response body', async () => {
  const human = tgHuman('Zed', 'zed_watch');
  await say(human, 'nothing to see');
  const r = await rig.http.get('/api/v1/openapi.json');
  expect(r.text).not.toContain(rig.tg.token);
});
