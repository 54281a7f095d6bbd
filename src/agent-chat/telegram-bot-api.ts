/**
 * A small real HTTP client for the Telegram Bot API: POST {TELEGRAM_API_BASE_URL}/bot<token>/<method>
 * with a JSON body, answer {ok, result} or {ok: false, error_code, description, parameters}.
 * The token is part of every URL, so neither URLs nor fetch's own errors (which may quote them)
 * ever reach an error message or a log line: failures carry the method name and Telegram's
 * description only.
 */
import type { Config } from '../platform/config.js';

export class TelegramError extends Error {
  constructor(
    readonly method: string,
    /** Telegram's error_code (400, 403, 429...), or 0 for a network failure or an unreadable answer. */
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfterS: number | null = null,
  ) {
    super(`Telegram ${method} failed: ${errorCode ? `${errorCode} ` : ''}${description}`);
    this.name = 'TelegramError';
  }
}

interface ChatPermissions {
  [permission: string]: boolean;
}

interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

interface ChatInviteLink {
  invite_link: string;
  creator: TelegramUser;
  creates_join_request: boolean;
  is_primary: boolean;
  is_revoked: boolean;
  name?: string;
  expire_date?: number;
  member_limit?: number;
}

interface SentMessage {
  message_id: number;
  date: number;
  chat: { id: number; type: string };
  text?: string;
  message_thread_id?: number;
}

interface WebhookInfo {
  url: string;
  has_custom_certificate: boolean;
  pending_update_count: number;
  allowed_updates?: string[];
  last_error_date?: number;
  last_error_message?: string;
}

/** The update types the service asks Telegram for (setWebhook allowed_updates). */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'chat_member'];

export class BotApi {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/bot${this.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error)?.name === 'TimeoutError';
      throw new TelegramError(method, 0, timedOut ? `no answer within ${this.timeoutMs} ms` : 'network error reaching the Bot API');
    }
    let body: any;
    try {
      body = await res.json();
    } catch {
      throw new TelegramError(method, res.status, 'the Bot API answered with something other than JSON');
    }
    if (body?.ok === true) return body.result as T;
    const retry = Number(body?.parameters?.retry_after);
    throw new TelegramError(method, Number(body?.error_code) || res.status, String(body?.description ?? 'unknown error').slice(0, 300), Number.isFinite(retry) ? retry : null);
  }

  sendMessage(p: { chat_id: number | string; text: string; message_thread_id?: number; reply_to_message_id?: number }): Promise<SentMessage> {
    const { reply_to_message_id, ...rest } = p;
    return this.call('sendMessage', {
      ...rest,
      ...(reply_to_message_id ? { reply_parameters: { message_id: reply_to_message_id, allow_sending_without_reply: true } } : {}),
      link_preview_options: { is_disabled: true },
    });
  }

  createChatInviteLink(p: { chat_id: number | string; name?: string; expire_date: number; member_limit: number }): Promise<ChatInviteLink> {
    return this.call('createChatInviteLink', p);
  }

  restrictChatMember(p: { chat_id: number | string; user_id: number; permissions: ChatPermissions; until_date?: number }): Promise<true> {
    return this.call('restrictChatMember', { ...p, use_independent_chat_permissions: true });
  }

  setWebhook(p: { url: string; secret_token: string; allowed_updates?: string[]; drop_pending_updates?: boolean; max_connections?: number }): Promise<true> {
    return this.call('setWebhook', p);
  }

  getWebhookInfo(): Promise<WebhookInfo> {
    return this.call('getWebhookInfo', {});
  }
}

/** The configured client, or null when TELEGRAM_BOT_TOKEN is unset. */
export function botApiFromConfig(config: Pick<Config, 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_BASE_URL'>, timeoutMs?: number): BotApi | null {
  return config.TELEGRAM_BOT_TOKEN ? new BotApi(config.TELEGRAM_API_BASE_URL, config.TELEGRAM_BOT_TOKEN, timeoutMs) : null;
}

/** The webhook URL the service serves (see routes/telegram-webhook.ts). */
export function webhookUrl(publicBaseUrl: string): string {
  return new URL('/telegram/webhook', publicBaseUrl).toString();
}

/**
 * Point Telegram at this service's webhook (the `telegram set-webhook` CLI command): setWebhook with
 * the URL (default PUBLIC_BASE_URL/telegram/webhook), TELEGRAM_WEBHOOK_SECRET as secret_token and
 * the update types the service reads.
 */
export async function registerWebhook(
  config: Pick<Config, 'TELEGRAM_BOT_TOKEN' | 'TELEGRAM_API_BASE_URL' | 'TELEGRAM_WEBHOOK_SECRET' | 'PUBLIC_BASE_URL'>,
  opts: { url?: string; dropPendingUpdates?: boolean } = {},
): Promise<{ url: string; allowed_updates: string[] }> {
  const api = botApiFromConfig(config);
  const missing = [!config.TELEGRAM_BOT_TOKEN && 'TELEGRAM_BOT_TOKEN', !config.TELEGRAM_WEBHOOK_SECRET && 'TELEGRAM_WEBHOOK_SECRET'].filter(Boolean);
  if (!api || missing.length) throw new Error(`set ${missing.join(' and ')} first`);
  const url = opts.url ?? webhookUrl(config.PUBLIC_BASE_URL);
  await api.setWebhook({ url, secret_token: config.TELEGRAM_WEBHOOK_SECRET!, allowed_updates: ALLOWED_UPDATES, drop_pending_updates: opts.dropPendingUpdates ?? false });
  return { url, allowed_updates: ALLOWED_UPDATES };
}
