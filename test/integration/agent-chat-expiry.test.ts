/**
 * Timing, with the windows shortened by configuration: the registration window, and the handshake
 * challenge expired by a real delayed job in a worker (not by the web process noticing late).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { solveChallenge, startRig, type Rig } from '../support/agent-chat.js';
import { sessionFor } from '../support/auth.js';
import { tgBot } from '../support/telegram-server.js';
import { waitFor } from '../support/wait.js';

let rig: Rig;
const WINDOW_S = 2;
const TTL_S = 2;

beforeAll(async () => {
  rig = await startRig({ AGENT_REGISTRATION_WINDOW_S: String(WINDOW_S), HANDSHAKE_TTL_S: String(TTL_S) });
});
afterAll(() => rig.close());

const post = (path: string, body: unknown, bearer: Record<string, string>) => rig.http.post(`/api/v1/agent-chat/${path}`, body, bearer);

async function registeredAgent() {
  const s = await sessionFor(rig.deps.db, rig.deps.config.JWT_SECRET, { accountType: 'bot' });
  const bot = tgBot(`timed_${s.userId}_bot`);
  await rig.tg.deliver(rig.tg.updates.text(bot, '/register'));
  const r = await post('register/', { operator: 'Op', model_name: 'm', telegram_bot_username: bot.username }, s.bearer);
  expect(r.status).toBe(201);
  return { s, bot };
}

it('a /register older than the window is refused with registration_window_expired; a fresh one works', async () => {
  const s = await sessionFor(rig.deps.db, rig.deps.config.JWT_SECRET, { accountType: 'cyborg' });
  const bot = tgBot('slow_operator_bot');
  await rig.tg.deliver(rig.tg.updates.text(bot, '/register'));
  // Until the database's clock (the one the window is checked against) puts the command past it.
  await waitFor(
    async () =>
      (
        await rig.deps.db
          .selectFrom('agent_registration_commands')
          .select(sql<boolean>`sent_at < now() - make_interval(secs => ${WINDOW_S})`.as('past'))
          .where(sql`lower(telegram_username)`, '=', 'slow_operator_bot')
          .orderBy('sent_at', 'desc')
          .limit(1)
          .executeTakeFirst()
      )?.past,
    { timeout: (WINDOW_S + 5) * 1000, interval: 50, what: 'the /register to be older than the window' },
  );
  const late = await post('register/', { operator: 'Op', model_name: 'm', telegram_bot_username: bot.username }, s.bearer);
  expect(late.status).toBe(409);
  expect(late.body.error.code).toBe('registration_window_expired');
  expect(late.body.error.details.window_seconds).toBe(WINDOW_S);
  expect(late.body.error.details.command_sent_at).toMatch(/^\d{4}-/);
  await rig.tg.deliver(rig.tg.updates.text(bot, '/register'));
  const r = await post('register/', { operator: 'Op', model_name: 'm', telegram_bot_username: bot.username }, s.bearer);
  expect(r.status).toBe(201);
});

it('the handshake-expire job expires an unanswered challenge at its deadline; finishing then is 410', async () => {
  const { s } = await registeredAgent();
  const start = await post('handshake/start/', {}, s.bearer);
  expect(start.status).toBe(201);
  const id = start.body.challenge_id;
  const status = async () =>
    await rig.deps.db.selectFrom('agent_handshake_challenges').select(['status', 'finished_at', 'expires_at']).where('id', '=', id).executeTakeFirstOrThrow();
  expect((await status()).status).toBe('open');
  // Nobody calls the API: the worker moves the row to expired on time.
  await expect.poll(async () => (await status()).status, { timeout: (TTL_S + 3) * 1000, interval: 100 }).toBe('expired');
  const row = await status();
  const lateByMs = row.finished_at!.getTime() - row.expires_at.getTime();
  expect(lateByMs).toBeGreaterThanOrEqual(0);
  expect(lateByMs).toBeLessThan(3000);
  const fin = await post('handshake/finish/', { challenge_id: id, responses: solveChallenge(start.body, (await rig.http.get('/api/v1/agent-chat/rules/')).body) }, s.bearer);
  expect(fin.status).toBe(410);
  expect(fin.body.error.code).toBe('handshake_challenge_expired');
  expect(fin.body.error.details.expired_at).toBe(start.body.expires_at);
});

it('an answer within the window passes; the expiry job that fires later leaves it alone', async () => {
  const { s } = await registeredAgent();
  const rules = (await rig.http.get('/api/v1/agent-chat/rules/')).body;
  const start = await post('handshake/start/', {}, s.bearer);
  const fin = await post('handshake/finish/', { challenge_id: start.body.challenge_id, responses: solveChallenge(start.body, rules) }, s.bearer);
  expect(fin.body.passed).toBe(true);
  const job = await rig.deps.queue.queue('handshake-expire').getJob(`handshake-expire-${start.body.challenge_id}-0`);
  await expect.poll(async () => job!.getState(), { timeout: (TTL_S + 3) * 1000 }).toBe('completed');
  const row = await rig.deps.db.selectFrom('agent_handshake_challenges').select('status').where('id', '=', start.body.challenge_id).executeTakeFirstOrThrow();
  expect(row.status).toBe('passed');
});
