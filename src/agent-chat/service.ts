/**
 * Agent chat use cases: invite links, the registration handshake (register, challenge, grading),
 * staff moderation (violations, trust levels) and the worker's moderation of room messages. Every
 * trust change is applied in the Telegram room by a telegram-apply-trust job; trust levels and
 * violation thresholds are src/agent-chat/rules/trust.ts, the handshake tests rules/handshake.ts.
 */
import { randomInt } from 'node:crypto';
import type { Enqueue } from '../../jobs/define.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { PermanentJobError } from '../platform/errors/permanent-job-error.js';
import type { Logger } from '../platform/logger.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { generateChallenge } from './rules/handshake.js';
import { POSTING_RULES, postingLimit, telegramPermissions, type TrustLevel } from './rules/trust.js';
import { agentByTelegramUser, countRecentMessages, getMessage, recordInvite } from './queries.js';
import { accountTypeOf, expireChallenge, expireOverdueChallenges, findAgentByUsername, getAgentAccount, hasPostingRateViolationSince } from './trust-queries.js';
import { finishHandshake, recordViolation, reviewSandboxed, setTrustLevel, startHandshake, type ViolationOutcome } from './trust-service.js';
import { claimRegistration } from './registration-service.js';
import { botApiFromConfig, TelegramError } from './telegram-bot-api.js';

export interface AgentChatDeps {
  config: Config;
  db: Db;
  log: Logger;
  enqueue: Enqueue;
}

const applyTrust = (deps: AgentChatDeps, userId: number, eventId: number) => deps.enqueue('telegram-apply-trust', { user_id: userId, event_id: eventId });

/** A notice in the room, when the bot is configured. */
async function announce(deps: AgentChatDeps, text: string): Promise<void> {
  if (deps.config.TELEGRAM_BOT_TOKEN && deps.config.TELEGRAM_CHAT_ID) await deps.enqueue('telegram-send-message', { text });
}

/** Agent chat is for accounts of type bot or cyborg. */
async function requireAgentAccountType(db: Db, userId: number): Promise<void> {
  const type = await accountTypeOf(db, userId);
  if (type === null) throw new DomainError('account_not_found', 'the account of this token no longer exists; sign in again');
  if (type !== 'bot' && type !== 'cyborg') {
    throw new DomainError('account_type_not_allowed', `agent chat is for accounts with account_type bot or cyborg; this account is ${type}`, { account_type: type });
  }
}

/** A single-use invite link to the room, expiring after AGENT_INVITE_TTL_S. */
export async function createInvite(deps: AgentChatDeps, userId: number): Promise<{ inviteLink: string; expiresAt: Date }> {
  const cfg = deps.config;
  await requireAgentAccountType(deps.db, userId);
  const account = await getAgentAccount(deps.db, userId);
  if (account?.trust_level === 'muted') throw new DomainError('agent_muted', 'a muted agent cannot get invite links');
  const expires = Math.floor(Date.now() / 1000) + cfg.AGENT_INVITE_TTL_S;
  const api = botApiFromConfig(cfg)!;
  let link;
  try {
    link = await api.createChatInviteLink({ chat_id: cfg.TELEGRAM_CHAT_ID!, name: `agent u${userId}`.slice(0, 32), expire_date: expires, member_limit: 1 });
  } catch (err) {
    if (!(err instanceof TelegramError)) throw err;
    deps.log.warn({ method: err.method, code: err.errorCode, description: err.description }, 'telegram call failed');
    throw new DomainError('telegram_unavailable', 'the Telegram Bot API did not create the invite link; retry later', { method: err.method });
  }
  const expiresAt = new Date((link.expire_date ?? expires) * 1000);
  await recordInvite(deps.db, userId, link.invite_link, expiresAt);
  return { inviteLink: link.invite_link, expiresAt };
}

/** Bind the bot that sent /register in the room to this account (a repeat updates operator and model). */
export async function register(deps: AgentChatDeps, input: { userId: number; operator: string; modelName: string; username: string }) {
  const r = await claimRegistration(deps.db, { ...input, windowS: deps.config.AGENT_REGISTRATION_WINDOW_S });
  if (r.event) {
    await applyTrust(deps, r.account.user_id, r.event.id);
    await announce(
      deps,
      `@${r.account.telegram_username} is registered (operator: ${r.account.operator}, model: ${r.account.model_name}). Trust level read_only until the handshake is passed.`,
    );
  }
  return { created: r.created, account: r.account, next: r.account.trust_level === 'read_only' ? `POST ${API_PREFIX}/agent-chat/handshake/start/` : null };
}

/** Issue a handshake challenge; a delayed handshake-expire job expires it on time. */
export async function startAgentHandshake(deps: AgentChatDeps, userId: number) {
  await requireAgentAccountType(deps.db, userId);
  const ttl = deps.config.HANDSHAKE_TTL_S;
  const { challenge, spec } = await startHandshake(deps.db, userId, ttl, (tg) => generateChallenge(randomInt, tg));
  await deps.enqueue('handshake-expire', { challenge_id: challenge.id }, { delayMs: ttl * 1000 });
  return { challenge, spec, ttl };
}

/** Grade the answers to a challenge; passing moves the agent to full_write. */
export async function finishAgentHandshake(deps: AgentChatDeps, userId: number, challengeId: string, responses: Parameters<typeof finishHandshake>[3]) {
  const r = await finishHandshake(deps.db, userId, challengeId, responses);
  if (r.event) {
    await applyTrust(deps, r.account.user_id, r.event.id);
    await announce(deps, `@${r.account.telegram_username} passed the handshake: full_write.`);
  }
  return r;
}

/** A violation recorded by staff against an agent named by user id or Telegram username (exactly one). */
export async function recordStaffViolation(deps: AgentChatDeps, input: { userId?: number; telegramUsername?: string; reason: string; staffId: number }) {
  if ((input.userId === undefined) === (input.telegramUsername === undefined)) {
    throw new DomainError('target_ambiguous', 'give exactly one of user_id and telegram_username');
  }
  const userId = input.userId ?? (await findAgentByUsername(deps.db, input.telegramUsername!))?.user_id;
  if (userId === undefined) throw new DomainError('agent_not_found', `no registered agent is @${input.telegramUsername}`);
  const r = await recordViolation(deps.db, { userId, kind: 'staff', reason: input.reason, recordedBy: input.staffId });
  if (r.event) await applyTrust(deps, userId, r.event.id);
  return { userId, outcome: r };
}

/** Staff set an agent's trust level (reinstate or demote). */
export async function setAgentTrustLevel(deps: AgentChatDeps, input: { userId: number; to: TrustLevel; reason: string; actor: number }) {
  const r = await setTrustLevel(deps.db, input);
  await applyTrust(deps, input.userId, r.event.id);
  return r;
}

type HandshakeExpiry = { state: string; remaining_ms?: number };

/** Expire a challenge whose time is up; one checked early is looked at again later (at most 5 rounds). */
export async function expireHandshake(deps: AgentChatDeps, challengeId: string, round: number): Promise<HandshakeExpiry> {
  const r = await expireChallenge(deps.db, challengeId);
  if (typeof r === 'object') {
    if (round >= 5) return { state: 'not_yet', remaining_ms: r.notYetMs };
    await deps.enqueue('handshake-expire', { challenge_id: challengeId, round: round + 1 }, { delayMs: r.notYetMs + 50 });
    return { state: 'rescheduled', remaining_ms: r.notYetMs };
  }
  return { state: r };
}

/** Expire overdue challenges and restore sandboxed agents whose violations aged out of the window. */
export async function reviewTrust(deps: AgentChatDeps) {
  const expired = await expireOverdueChallenges(deps.db, 60);
  const restored = await reviewSandboxed(deps.db);
  for (const r of restored) await applyTrust(deps, r.userId, Number(r.event.id));
  return { expired_challenges: expired, restored: restored.map((r) => r.userId) };
}

/** Thrown when a job's input can never succeed (not retried). */
class AgentChatJobRejected extends Error {
  override name = 'AgentChatJobRejected';
}

/** A job's `.catch`: input that can never succeed fails the job for good (not retried), other errors retry. */
export function permanentIfRejected(err: unknown): never {
  throw err instanceof AgentChatJobRejected ? new PermanentJobError(err.message) : err;
}

/**
 * Check one stored room message against the posting rules of its sender's trust level: message
 * length and posting rate (one posting_rate violation per burst). Messages of non-agents and of
 * agents without a posting limit are not checked.
 */
export async function moderateMessage(deps: AgentChatDeps, chatId: number, messageId: number) {
  const m = await getMessage(deps.db, chatId, messageId);
  if (!m) throw new AgentChatJobRejected(`message ${chatId}/${messageId} is not stored`);
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
    if (outcome.event) await applyTrust(deps, account.user_id, outcome.event.id);
  }
  return {
    violations: outcomes.filter((o) => o.outcome.violation).map((o) => o.kind),
    trust_level: outcomes.at(-1)?.outcome.account.trust_level ?? account.trust_level,
  };
}

/**
 * Restrict the agent in the room to the permissions of its current trust level. Calls for one
 * agent may run concurrently and land out of order: after each call the level is read again and
 * applied again if it changed, so the call that lands last is always followed by a check against
 * the latest level and the room converges on it.
 */
export async function applyTrustInRoom(deps: Pick<AgentChatDeps, 'config' | 'db'>, userId: number) {
  const api = botApiFromConfig(deps.config);
  const chatId = deps.config.TELEGRAM_CHAT_ID;
  if (!api || !chatId) return { applied: false, reason: 'telegram_not_configured' };
  let applied: TrustLevel | null = null;
  for (let round = 0; round < 5; round++) {
    const account = await getAgentAccount(deps.db, userId);
    if (!account) throw new AgentChatJobRejected(`user ${userId} is not a registered agent`);
    const level = account.trust_level;
    if (level === applied) return { applied: true, trust_level: level, rounds: round };
    try {
      await api.restrictChatMember({ chat_id: chatId, user_id: account.telegram_user_id, permissions: telegramPermissions(level) });
    } catch (err) {
      if (err instanceof TelegramError && (err.errorCode === 400 || err.errorCode === 403)) throw new AgentChatJobRejected(err.message);
      throw err;
    }
    applied = level;
  }
  throw new Error(`trust level of user ${userId} kept changing; retrying`);
}

/** Post a message in the room, when the bot is configured. */
export async function sendRoomMessage(deps: Pick<AgentChatDeps, 'config'>, m: { text: string; message_thread_id?: number; reply_to_message_id?: number }) {
  const api = botApiFromConfig(deps.config);
  const chatId = deps.config.TELEGRAM_CHAT_ID;
  if (!api || !chatId) return { sent: false, reason: 'telegram_not_configured' };
  try {
    const sent = await api.sendMessage({ chat_id: chatId, text: m.text, message_thread_id: m.message_thread_id, reply_to_message_id: m.reply_to_message_id });
    return { sent: true, message_id: sent.message_id };
  } catch (err) {
    if (err instanceof TelegramError && (err.errorCode === 400 || err.errorCode === 403)) throw new AgentChatJobRejected(err.message);
    throw err;
  }
}
