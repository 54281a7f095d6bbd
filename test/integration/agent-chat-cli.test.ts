/** The agent-chat CLI groups (`telegram`, `agent`) against the local Bot API server and this file's database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli.js';
import { telegramPermissions } from '../../src/agent-chat/rules/trust.js';
import { solveChallenge, startRig, WEBHOOK_SECRET, type Rig } from '../support/agent-chat.js';
import { sessionFor } from '../support/auth.js';
import { tgBot } from '../support/telegram-server.js';

let rig: Rig;
const saved = { ...process.env };

beforeAll(async () => {
  rig = await startRig();
  // The telegram/agent commands read Telegram and Redis settings from the environment (this file runs in its own process).
  Object.assign(process.env, rig.deps.env.env);
});
afterAll(async () => {
  process.env = saved;
  await rig.close();
});

const cli = (...argv: string[]) => runCliCaptured(rig.deps.env.env, argv);

describe('telegram', () => {
  it('set-webhook registers the URL with the secret token; webhook-info reads it back', async () => {
    const url = `${await rig.http.base}/telegram/webhook`;
    const r = await cli('telegram', 'set-webhook', url);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`webhook set: ${url}`);
    expect(rig.tg.webhook).toMatchObject({ url, secret_token: WEBHOOK_SECRET, allowed_updates: ['message', 'edited_message', 'chat_member'] });
    const info = await cli('telegram', 'webhook-info');
    expect(info.out).toContain(`url: ${url}`);
    expect(info.out).not.toContain(rig.tg.token);
  });

  it('refuses a bad URL (usage, exit 2) and a missing token (exit 1); a Telegram error is reported without the token', async () => {
    expect((await cli('telegram', 'set-webhook', 'not a url')).code).toBe(2);
    rig.tg.failNext('setWebhook', { error_code: 400, description: 'Bad Request: bad webhook: HTTPS url must be provided for webhook' });
    const failed = await cli('telegram', 'set-webhook', 'http://example.com/telegram/webhook');
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('HTTPS url must be provided');
    expect(failed.err).not.toContain(rig.tg.token);
    const token = process.env.TELEGRAM_BOT_TOKEN;
    process.env.TELEGRAM_BOT_TOKEN = '';
    try {
      const r = await cli('telegram', 'set-webhook');
      expect(r.code).toBe(1);
      expect(r.err).toContain('TELEGRAM_BOT_TOKEN');
    } finally {
      // Restored exactly (workers run several files in one process): unset stays unset, not "undefined".
      if (token === undefined) delete process.env.TELEGRAM_BOT_TOKEN;
      else process.env.TELEGRAM_BOT_TOKEN = token;
    }
  });
});

describe('agent', () => {
  it('lists agents, records violations (demoting at 3), shows violations and events, reinstates', async () => {
    expect((await cli('agent', 'list')).out).toBe('no registered agents');
    const s = await sessionFor(rig.deps.db, rig.deps.config.JWT_SECRET, { accountType: 'bot' });
    const bot = tgBot('cli_agent_bot');
    await rig.tg.deliver(rig.tg.updates.text(bot, '/register'));
    expect((await rig.http.post('/api/v1/agent-chat/register/', { operator: 'Ops', model_name: 'm1', telegram_bot_username: bot.username }, s.bearer)).status).toBe(201);
    const start = await rig.http.post('/api/v1/agent-chat/handshake/start/', {}, s.bearer);
    const rules = (await rig.http.get('/api/v1/agent-chat/rules/')).body;
    expect(
      (await rig.http.post('/api/v1/agent-chat/handshake/finish/', { challenge_id: start.body.challenge_id, responses: solveChallenge(start.body, rules) }, s.bearer)).body.passed,
    ).toBe(true);

    const list = await cli('agent', 'list', 'full_write');
    expect(list.out).toMatch(new RegExp(`${s.userId}\\s+@cli_agent_bot\\s+full_write\\s+0\\s+Ops\\s+m1`));
    expect((await cli('agent', 'list', 'sandbox_write')).out).toBe('no registered agents');

    expect((await cli('agent', 'violation', '@cli_agent_bot', 'off-topic', 'shilling')).out).toContain('1 in the window; trust level full_write');
    await cli('agent', 'violation', String(s.userId), 'again');
    const third = await cli('agent', 'violation', 'cli_agent_bot', 'third strike');
    expect(third.code).toBe(0);
    expect(third.out).toContain('trust changed full_write -> sandbox_write');
    expect(third.out).toContain('the worker will update the room restriction');
    await expect.poll(() => rig.tg.restrictions.get(bot.id), { timeout: 5000 }).toEqual(telegramPermissions('sandbox_write'));

    const v = await cli('agent', 'violations', '@cli_agent_bot');
    expect(v.out.split('\n')).toHaveLength(4);
    expect(v.out).toContain('off-topic shilling');
    expect(v.out).toMatch(/staff\s+cli/);

    const back = await cli('agent', 'set-trust', '@cli_agent_bot', 'full_write', 'reviewed', 'by', 'ops');
    expect(back.out).toContain('trust changed sandbox_write -> full_write');
    await expect.poll(() => rig.tg.restrictions.get(bot.id), { timeout: 5000 }).toEqual(telegramPermissions('full_write'));
    const events = await cli('agent', 'events', String(s.userId));
    expect(
      events.out
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s{2,}/).slice(2, 5)),
    ).toEqual([
      ['sandbox_write', 'full_write', 'staff'],
      ['full_write', 'sandbox_write', 'violations'],
      ['read_only', 'full_write', 'handshake'],
      ['-', 'read_only', 'registration'],
    ]);
    expect((await cli('agent', 'set-trust', '@cli_agent_bot', 'full_write', 'again')).err).toContain('already at full_write');
  });

  it('usage errors exit 2, unknown agents exit 1', async () => {
    expect((await cli('agent', 'violation', '@cli_agent_bot')).code).toBe(2);
    expect((await cli('agent', 'violation', '@cli_agent_bot', 'x')).code).toBe(2);
    expect((await cli('agent', 'set-trust', '@cli_agent_bot', 'banned', 'because')).code).toBe(2);
    expect((await cli('agent', 'list', 'vip')).code).toBe(2);
    expect((await cli('agent', 'violations', 'not a name!')).code).toBe(2);
    const ghost = await cli('agent', 'violation', '424242', 'nope nope');
    expect(ghost.code).toBe(1);
    expect(ghost.err).toContain('not a registered agent');
    expect((await cli('agent', 'events', '@nobody_bot_here')).code).toBe(1);
    const help = await cli('help', 'agent');
    expect(help.out).toContain('rolling 30 days');
  });
});
