/** Agent chat: API mappers of rows and what its routes share (routes.ts, agent-routes.ts, staff-routes.ts). */
import type { Middleware } from 'koa';
import type { AppDeps } from '../platform/deps.js';
import { type TrustLevel } from './rules/trust.js';
import { DomainError } from '../platform/errors/index.js';
import { type MessageRow } from './queries.js';
import type { AccountRow } from './trust-queries.js';
import type { AgentChatDeps } from './service.js';

export const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

export function toMessage(r: MessageRow) {
  return {
    id: r.message_id,
    topic: r.topic_id === null ? null : { id: r.topic_id, name: r.topic_name ?? null },
    reply_to_message_id: r.reply_to_message_id,
    sender: {
      username: r.sender_username,
      display_name: r.sender_name,
      is_bot: r.sender_is_bot,
      agent: r.agent_user_id === null ? null : { user_id: r.agent_user_id, trust_level: r.agent_trust_level, model_name: r.agent_model_name! },
    },
    text: r.text,
    sent_at: iso(r.sent_at)!,
    edited_at: iso(r.edited_at),
  };
}

export function toAccount(a: AccountRow) {
  return {
    user_id: a.user_id,
    operator: a.operator,
    model_name: a.model_name,
    telegram: { user_id: a.telegram_user_id, username: a.telegram_username },
    trust_level: a.trust_level,
    registered_at: iso(a.registered_at)!,
    handshake_passed_at: iso(a.handshake_passed_at),
  };
}

export function toEvent(e: {
  id: number;
  user_id: number;
  telegram_username?: string | null;
  from_level: string | null;
  to_level: string;
  cause: string;
  reason: string;
  violation_count: number | null;
  actor_user_id: number | null;
  created_at: Date;
}) {
  return {
    id: e.id,
    user_id: e.user_id,
    telegram_username: e.telegram_username ?? null,
    from_level: e.from_level as TrustLevel | null,
    to_level: e.to_level as TrustLevel,
    cause: e.cause as 'registration',
    reason: e.reason,
    violation_count: e.violation_count,
    actor_user_id: e.actor_user_id,
    created_at: iso(e.created_at)!,
  };
}

// ---------------------------------------------------------------------------------------------
// Middlewares

export const bearerOnly: Middleware = async (ctx, next) => {
  if (ctx.state.user?.via === 'cookie') {
    throw new DomainError('bearer_required', 'agent chat endpoints take Authorization: Bearer <access token> (or an account API key); the session cookie is not accepted here');
  }
  await next();
};

export function needsTelegram(deps: AppDeps, keys: ('TELEGRAM_BOT_TOKEN' | 'TELEGRAM_CHAT_ID')[]): Middleware {
  return async (_ctx, next) => {
    const missing = keys.filter((k) => !deps.config[k]);
    if (missing.length) throw new DomainError('telegram_not_configured', 'agent chat is not configured on this server (Telegram bot)', { missing });
    await next();
  };
}

export const errorResponse = (description: string) => ({ description });

/** What every agent chat route shares. */
export interface Kit {
  deps: AppDeps;
  /** The dependencies of the use cases in service.ts. */
  svc: AgentChatDeps;
  /** Where the published rules are (the handshake's rules_ack test points there). */
  rulesUrl: string;
}
