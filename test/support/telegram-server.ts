/**
 * A local Telegram Bot API for tests: a real HTTP server on 127.0.0.1 that answers
 * POST /bot<token>/<method> the way api.telegram.org does ({ok, result} or {ok: false, error_code,
 * description}) for the methods the service uses (getMe, sendMessage, createChatInviteLink,
 * restrictChatMember, setWebhook, getWebhookInfo, deleteWebhook), records every call, and delivers
 * real-shaped updates to the registered webhook with the X-Telegram-Bot-Api-Secret-Token header,
 * as Telegram does.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { asyncListener } from '../../src/platform/http/listener.js';

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

interface Call {
  method: string;
  params: Record<string, any>;
}

interface Failure {
  error_code: number;
  description: string;
  retry_after?: number;
}

export interface TelegramServer {
  /** Base URL for TELEGRAM_API_BASE_URL. */
  url: string;
  token: string;
  chatId: number;
  bot: TgUser;
  calls: Call[];
  webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | null;
  /** Current ChatPermissions of restricted members, by user id. */
  restrictions: Map<number, Record<string, boolean>>;
  /** Make the next call of `method` fail like Telegram would. */
  failNext(method: string, failure: Failure): void;
  callsOf(method: string): Call[];
  /** Wait until a call of `method` matching `pred` has arrived. */
  waitForCall(method: string, pred?: (c: Call) => boolean, timeoutMs?: number): Promise<Call>;
  /** Deliver an update to the webhook as Telegram does; returns the webhook's answer. */
  deliver(update: Record<string, any>, opts?: { secret?: string | null }): Promise<{ status: number; body: any }>;
  updates: UpdateBuilder;
  close(): Promise<void>;
}

/** Builds real-shaped updates for one forum supergroup (message ids increase, dates are now). */
export class UpdateBuilder {
  private updateId = 700_000_000 + Math.floor(Math.random() * 1000);
  private messageId = 1000;
  readonly chat: Record<string, unknown>;

  constructor(readonly chatId: number) {
    this.chat = { id: chatId, title: 'Squid Agents', type: 'supergroup', is_forum: true };
  }

  now(): number {
    return Math.floor(Date.now() / 1000);
  }

  nextUpdateId(): number {
    return ++this.updateId;
  }

  private base(from: TgUser, extra: Record<string, unknown>, opts: { topicId?: number; date?: number; chat?: Record<string, unknown> }) {
    const message_id = ++this.messageId;
    return {
      message_id,
      from,
      chat: opts.chat ?? this.chat,
      date: opts.date ?? this.now(),
      ...(opts.topicId !== undefined ? { message_thread_id: opts.topicId, is_topic_message: true } : {}),
      ...extra,
    };
  }

  text(from: TgUser, text: string, opts: { topicId?: number; date?: number; chat?: Record<string, unknown>; replyTo?: Record<string, unknown> } = {}) {
    const entities = text.startsWith('/') ? [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0].length }] : undefined;
    const message = this.base(from, { text, ...(entities ? { entities } : {}), ...(opts.replyTo ? { reply_to_message: opts.replyTo } : {}) }, opts);
    return { update_id: this.nextUpdateId(), message };
  }

  photo(from: TgUser, caption: string | undefined, opts: { topicId?: number } = {}) {
    const message = this.base(
      from,
      { photo: [{ file_id: 'AgAC' + randomBytes(8).toString('hex'), file_unique_id: 'AQAD', width: 90, height: 90, file_size: 1200 }], ...(caption ? { caption } : {}) },
      opts,
    );
    return { update_id: this.nextUpdateId(), message };
  }

  edited(original: { message: Record<string, any> }, text: string) {
    return { update_id: this.nextUpdateId(), edited_message: { ...original.message, text, edit_date: this.now() } };
  }

  /** A forum_topic_created service message; its message_id is the topic id. */
  topicCreated(from: TgUser, name: string, iconColor = 7322096) {
    const message_id = ++this.messageId;
    const message = {
      message_id,
      message_thread_id: message_id,
      is_topic_message: true,
      from,
      chat: this.chat,
      date: this.now(),
      forum_topic_created: { name, icon_color: iconColor },
    };
    return { update: { update_id: this.nextUpdateId(), message }, topicId: message_id };
  }

  topicEdited(from: TgUser, topicId: number, name: string) {
    return { update_id: this.nextUpdateId(), message: this.base(from, { forum_topic_edited: { name } }, { topicId }) };
  }

  topicClosed(from: TgUser, topicId: number) {
    return { update_id: this.nextUpdateId(), message: this.base(from, { forum_topic_closed: {} }, { topicId }) };
  }

  joined(user: TgUser) {
    return { update_id: this.nextUpdateId(), message: this.base(user, { new_chat_members: [user], new_chat_member: user, new_chat_participant: user }, {}) };
  }

  left(user: TgUser) {
    return { update_id: this.nextUpdateId(), message: this.base(user, { left_chat_member: user, left_chat_participant: user }, {}) };
  }

  chatMember(actor: TgUser, user: TgUser, oldStatus: string, newStatus: string) {
    return {
      update_id: this.nextUpdateId(),
      chat_member: {
        chat: this.chat,
        from: actor,
        date: this.now(),
        old_chat_member: { user, status: oldStatus },
        new_chat_member: { user, status: newStatus, ...(newStatus === 'kicked' ? { until_date: 0 } : {}) },
      },
    };
  }
}

let nextUserId = 5_100_000_000 + Math.floor(Math.random() * 1_000_000);

export function tgBot(username: string): TgUser {
  return { id: ++nextUserId, is_bot: true, first_name: username.replace(/_?bot$/i, ''), username };
}

export function tgHuman(first: string, username?: string): TgUser {
  return { id: ++nextUserId, is_bot: false, first_name: first, ...(username ? { username } : {}) };
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  return JSON.parse(raw);
}

const bad = (description: string, error_code = 400) => ({ status: error_code, body: { ok: false, error_code, description } });

export async function startTelegramServer(opts: { chatId?: number; botUsername?: string } = {}): Promise<TelegramServer> {
  const botId = 7_000_000_000 + Math.floor(Math.random() * 1_000_000);
  const token = `${botId}:AA${randomBytes(24).toString('base64url')}`;
  const chatId = opts.chatId ?? -1_002_000_000_000 - Math.floor(Math.random() * 1_000_000);
  const bot: TgUser = { id: botId, is_bot: true, first_name: 'Squid News', username: opts.botUsername ?? 'squid_news_test_bot' };
  const calls: Call[] = [];
  const failures = new Map<string, Failure[]>();
  const restrictions = new Map<number, Record<string, boolean>>();
  const waiters: { method: string; pred: (c: Call) => boolean; resolve: (c: Call) => void }[] = [];
  let sentId = 50_000;
  const state: { webhook: TelegramServer['webhook'] } = { webhook: null };

  function handle(method: string, p: Record<string, any>): { status: number; body: any } {
    const queued = failures.get(method);
    if (queued?.length) {
      const f = queued.shift()!;
      return {
        status: f.error_code,
        body: { ok: false, error_code: f.error_code, description: f.description, ...(f.retry_after ? { parameters: { retry_after: f.retry_after } } : {}) },
      };
    }
    const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });
    const sameChat = (id: unknown) => String(id) === String(chatId);
    switch (method) {
      case 'getMe':
        return ok({ ...bot, can_join_groups: true, can_read_all_group_messages: true, supports_inline_queries: false });
      case 'sendMessage': {
        if (p.chat_id === undefined) return bad('Bad Request: chat_id is empty');
        if (!sameChat(p.chat_id)) return bad('Bad Request: chat not found');
        if (typeof p.text !== 'string' || !p.text.trim()) return bad('Bad Request: message text is empty');
        if (p.text.length > 4096) return bad('Bad Request: message is too long');
        return ok({
          message_id: ++sentId,
          from: bot,
          chat: { id: chatId, title: 'Squid Agents', type: 'supergroup', is_forum: true },
          date: Math.floor(Date.now() / 1000),
          text: p.text,
          ...(p.message_thread_id ? { message_thread_id: Number(p.message_thread_id), is_topic_message: true } : {}),
        });
      }
      case 'createChatInviteLink': {
        if (!sameChat(p.chat_id)) return bad('Bad Request: chat not found');
        const limit = p.member_limit === undefined ? undefined : Number(p.member_limit);
        if (limit !== undefined && (limit < 1 || limit > 99_999)) return bad('Bad Request: invalid member limit specified');
        if (p.name !== undefined && String(p.name).length > 32) return bad('Bad Request: invite link name is too long');
        if (p.expire_date !== undefined && Number(p.expire_date) <= Date.now() / 1000) return bad('Bad Request: expire date is in the past');
        return ok({
          invite_link: `https://t.me/+${randomBytes(12).toString('base64url')}`,
          creator: bot,
          creates_join_request: false,
          is_primary: false,
          is_revoked: false,
          ...(p.name ? { name: p.name } : {}),
          ...(p.expire_date ? { expire_date: Number(p.expire_date) } : {}),
          ...(limit ? { member_limit: limit } : {}),
        });
      }
      case 'restrictChatMember': {
        if (!sameChat(p.chat_id)) return bad('Bad Request: chat not found');
        if (!p.user_id) return bad('Bad Request: user_id is empty');
        const perms = typeof p.permissions === 'string' ? JSON.parse(p.permissions) : p.permissions;
        if (!perms || typeof perms !== 'object') return bad('Bad Request: permissions must be an object');
        if (Number(p.user_id) === botId) return bad("Bad Request: can't restrict self");
        restrictions.set(Number(p.user_id), perms);
        return ok(true);
      }
      case 'setWebhook': {
        if (!p.url) return ok(true);
        if (p.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(p.secret_token)) return bad('Bad Request: secret token contains unallowed characters');
        try {
          new URL(p.url);
        } catch {
          return bad('Bad Request: invalid webhook URL specified');
        }
        state.webhook = { url: p.url, secret_token: p.secret_token, allowed_updates: p.allowed_updates };
        return ok(true);
      }
      case 'deleteWebhook':
        state.webhook = null;
        return ok(true);
      case 'getWebhookInfo':
        return ok({
          url: state.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: 0,
          ...(state.webhook?.allowed_updates ? { allowed_updates: state.webhook.allowed_updates } : {}),
        });
      default:
        return bad('Not Found', 404);
    }
  }

  const server = http.createServer(
    asyncListener(async (req, res) => {
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec((req.url ?? '').split('?')[0]);
      let out: { status: number; body: any };
      if (!m) out = bad('Not Found', 404);
      else if (m[1] !== token) out = bad('Unauthorized', 401);
      else {
        let params: Record<string, any>;
        try {
          params = await readBody(req);
        } catch {
          params = {};
        }
        const call = { method: m[2], params };
        calls.push(call);
        out = handle(m[2], params);
        for (const w of [...waiters]) {
          if (w.method === call.method && w.pred(call)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(call);
          }
        }
      }
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    chatId,
    bot,
    calls,
    get webhook() {
      return state.webhook;
    },
    restrictions,
    updates: new UpdateBuilder(chatId),
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    callsOf(method) {
      return calls.filter((c) => c.method === method);
    },
    waitForCall(method, pred = () => true, timeoutMs = 5000) {
      const found = calls.find((c) => c.method === method && pred(c));
      if (found) return Promise.resolve(found);
      return new Promise<Call>((resolve, reject) => {
        const w = { method, pred, resolve: (c: Call) => (clearTimeout(timer), resolve(c)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`no ${method} call within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    async deliver(update, o = {}) {
      if (!state.webhook) throw new Error('no webhook registered (call setWebhook first)');
      const secret = o.secret === undefined ? state.webhook.secret_token : o.secret;
      const res = await fetch(state.webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}) },
        body: JSON.stringify(update),
      });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
