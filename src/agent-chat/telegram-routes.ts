/**
 * POST /telegram/webhook (host root, outside /api/v1: it is Telegram's endpoint, not part of the
 * public API, and not counted against any quota). Telegram sends every update with the header
 * X-Telegram-Bot-Api-Secret-Token set to the secret_token given to setWebhook; anything else is 401.
 * Register it with `npm run cli -- telegram set-webhook` (setWebhook with url
 * PUBLIC_BASE_URL/telegram/webhook, secret_token TELEGRAM_WEBHOOK_SECRET, allowed_updates message,
 * edited_message, chat_member). Telegram only calls https URLs on ports 443, 80, 88 or 8443.
 *
 * Each update is stored once (update_id); only the room TELEGRAM_CHAT_ID is recorded, other chats
 * are acknowledged and ignored. 200 tells Telegram the update is handled; a 5xx makes it retry.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { ingestUpdate } from './ingest-service.js';
import { readUpdate, updateSchema } from './telegram-updates.js';

const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function telegramWebhookRoutes(deps: AppDeps): RouteDef[] {
  const cfg = deps.config;
  const windowMin = Math.round(cfg.AGENT_REGISTRATION_WINDOW_S / 60);
  return [
    defineRoute({
      method: 'post',
      path: '/telegram/webhook',
      mount: 'root',
      operationId: 'telegramWebhook',
      summary: 'Telegram Bot API webhook for the agent room (secured by X-Telegram-Bot-Api-Secret-Token)',
      description:
        'Called by Telegram only. Errors: webhook_secret_invalid (401: header missing or wrong), telegram_not_configured (503: TELEGRAM_WEBHOOK_SECRET or TELEGRAM_CHAT_ID unset), validation_failed (400: not an Update).',
      tags: ['agent-chat'],
      before: [
        async (ctx, next) => {
          // Checked before the body is validated, so an unauthenticated caller learns nothing.
          const secret = cfg.TELEGRAM_WEBHOOK_SECRET;
          if (!secret || !cfg.TELEGRAM_CHAT_ID) throw new DomainError('telegram_not_configured', 'the Telegram webhook is not configured on this server');
          if (!sameSecret(ctx.get(SECRET_HEADER), secret)) throw new DomainError('webhook_secret_invalid', 'missing or wrong X-Telegram-Bot-Api-Secret-Token');
          await next();
        },
      ],
      body: updateSchema,
      responses: {
        200: { description: 'handled (or a duplicate of a handled update)', schema: z.object({ ok: z.literal(true), duplicate: z.boolean() }) },
        401: { description: 'webhook_secret_invalid' },
        503: { description: 'telegram_not_configured' },
      },
      async handler(ctx, { body }) {
        const chatId = Number(cfg.TELEGRAM_CHAT_ID);
        const read = readUpdate(body, chatId, cfg.TELEGRAM_BOT_USERNAME ?? null);
        const out = await ingestUpdate(deps.db, body.update_id, chatId, read);
        if (out.moderate) await deps.queue.enqueue('agent-moderation', out.moderate);
        const r = out.register;
        if (r && cfg.TELEGRAM_BOT_TOKEN) {
          const text = r.ok
            ? `@${r.telegram_username}: /register noted. Your operator has ${windowMin} minute${windowMin === 1 ? '' : 's'} to call POST /api/v1/agent-chat/register/ with telegram_bot_username "${r.telegram_username}".`
            : `/register was not recorded: ${r.reason}.`;
          await deps.queue.enqueue('telegram-send-message', {
            text,
            reply_to_message_id: r.message_id,
            ...(r.topic_id !== null ? { message_thread_id: r.topic_id } : {}),
            once_key: `register-ack-${chatId}-${r.message_id}`,
          });
        }
        ctx.body = { ok: true, duplicate: out.duplicate };
      },
    }),
  ];
}
