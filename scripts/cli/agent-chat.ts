/**
 * `telegram set-webhook|webhook-info` and `agent list|violation|violations|events|set-trust`: the
 * operators' side of the agent chat. Trust changes made here are recorded like the staff endpoints'
 * (an append-only event; recorded_by / actor null means "the CLI") and the room restriction follows
 * through the worker (a telegram-apply-trust job is enqueued on Redis).
 *
 * The CLI context carries only the database, so these commands read the rest of the configuration
 * (Telegram, Redis) with loadConfig() from the same environment.
 */
import { DomainError } from '../../src/platform/errors/domain-error.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Db } from '../../src/platform/db.js';
import { isTrustLevel, TRUST_LEVELS, type TrustLevel } from '../../src/agent-chat/rules/trust.js';
import { findAgentByUsername, getAgentAccount, listAgents, listTrustEvents, listViolations } from '../../src/agent-chat/trust-queries.js';
import { recordViolation, setTrustLevel } from '../../src/agent-chat/trust-service.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { ALLOWED_UPDATES, botApiFromConfig, registerWebhook, TelegramError, webhookUrl } from '../../src/agent-chat/telegram-bot-api.js';
import { CliError, UsageError, type CommandGroup, cliTime, printTable } from './command.js';
import { jobs } from '../../jobs/index.js';

async function resolveAgent(db: Db, target: string): Promise<number> {
  if (/^\d{1,10}$/.test(target)) {
    const a = await getAgentAccount(db, Number(target));
    if (!a) throw new CliError(`user ${target} is not a registered agent`);
    return a.user_id;
  }
  if (!/^@?[A-Za-z0-9_]{5,32}$/.test(target)) throw new UsageError(`"${target}" is neither a user id nor a Telegram username`);
  const a = await findAgentByUsername(db, target);
  if (!a) throw new CliError(`no registered agent is @${target.replace(/^@/, '')}`);
  return a.user_id;
}

function reasonOf(words: string[]): string {
  const reason = words.join(' ').trim();
  if (reason.length < 3 || reason.length > 500) throw new UsageError('the reason must be 3-500 characters');
  return reason;
}

/** Have the worker make the room enforce the new level (best effort: the level itself is already stored). */
async function enqueueApplyTrust(userId: number, eventId: number): Promise<string> {
  const config = loadConfig();
  if (!config.TELEGRAM_BOT_TOKEN || !config.TELEGRAM_CHAT_ID) return 'Telegram is not configured: no room restriction to update';
  const redis = createRedis(config.REDIS_URL, 'command', 'cli');
  const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX);
  try {
    await queue.enqueue('telegram-apply-trust', { user_id: userId, event_id: eventId });
    return 'the worker will update the room restriction';
  } catch (err) {
    return `could not enqueue the room restriction update (${(err as Error).message}); it will be applied on the next change`;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

async function refusals<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) throw new CliError(err.message);
    throw err;
  }
}

/** Write a block of lines to the CLI's output. */
function print(ctx: { out(line: string): void }, text: string): void {
  for (const line of text.split('\n')) ctx.out(line);
}

export const telegramCommands: CommandGroup = {
  name: 'telegram',
  summary: 'Telegram bot of the agent chat: register the webhook, inspect it',
  notes: [
    'Needs TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET; the URL defaults to PUBLIC_BASE_URL/telegram/webhook.',
    'Telegram only delivers to https URLs on ports 443, 80, 88 or 8443.',
    `Update types asked for: ${ALLOWED_UPDATES.join(', ')} (chat_member needs the bot to be an admin of the room).`,
  ],
  commands: [
    {
      name: 'set-webhook',
      args: '[url]',
      summary: 'call setWebhook with the secret token and the update types the service reads',
      async run(args, ctx) {
        if (args.length > 1) throw new UsageError('expected at most one argument: [url]');
        const config = loadConfig();
        const url = args[0] ?? webhookUrl(config.PUBLIC_BASE_URL);
        try {
          new URL(url);
        } catch {
          throw new UsageError(`"${url}" is not a URL`);
        }
        try {
          const r = await registerWebhook(config, { url });
          return print(ctx, [`webhook set: ${r.url}`, `allowed updates: ${r.allowed_updates.join(', ')}`].join('\n'));
        } catch (err) {
          throw new CliError((err as Error).message);
        }
      },
    },
    {
      name: 'webhook-info',
      args: '',
      arity: 0,
      summary: 'what Telegram reports about the webhook (URL, pending updates, last error)',
      async run(args, ctx) {
        const api = botApiFromConfig(loadConfig());
        if (!api) throw new CliError('set TELEGRAM_BOT_TOKEN first');
        try {
          const w = await api.getWebhookInfo();
          return print(
            ctx,
            [
              `url: ${w.url || '(none)'}`,
              `pending updates: ${w.pending_update_count}`,
              `allowed updates: ${w.allowed_updates?.join(', ') ?? '(default)'}`,
              `last error: ${w.last_error_message ? `${w.last_error_message} at ${cliTime(new Date((w.last_error_date ?? 0) * 1000))}` : '(none)'}`,
            ].join('\n'),
          );
        } catch (err) {
          if (err instanceof TelegramError) throw new CliError(err.message);
          throw err;
        }
      },
    },
  ],
};

export const agentCommands: CommandGroup = {
  name: 'agent',
  summary: 'Agent chat: registered agents, violations, trust levels',
  notes: [
    `Trust levels: ${TRUST_LEVELS.join(', ')}. Registration starts at read_only; the handshake gives full_write.`,
    'Violations count over a rolling 30 days: 3+ moves full_write to sandbox_write, 6+ mutes.',
    'set-trust to full_write or read_only also stops earlier violations from counting.',
    'An agent is named by its user id or its Telegram username (@name).',
  ],
  commands: [
    {
      name: 'list',
      args: '[trust_level]',
      summary: 'registered agents with trust level and counted violations',
      async run(args, ctx) {
        if (args.length > 1) throw new UsageError('expected at most one argument: [trust_level]');
        if (args[0] !== undefined && !isTrustLevel(args[0])) throw new UsageError(`unknown trust level "${args[0]}"; levels are ${TRUST_LEVELS.join(', ')}`);
        const rows = await listAgents(ctx.db(), { trustLevel: args[0] as TrustLevel | undefined, limit: 500 });
        if (!rows.length) return print(ctx, 'no registered agents');
        return printTable(
          ctx,
          ['user', 'telegram', 'trust', 'violations', 'operator', 'model', 'registered'],
          rows.map((r) => [String(r.user_id), `@${r.telegram_username}`, r.trust_level, String(r.violation_count), r.operator, r.model_name, cliTime(r.registered_at)]),
        );
      },
    },
    {
      name: 'violation',
      args: '<agent> <reason...>',
      summary: 'record a violation (may demote or mute the agent)',
      async run(args, ctx) {
        if (args.length < 2) throw new UsageError('expected <agent> <reason...>');
        const userId = await resolveAgent(ctx.db(), args[0]);
        const r = await refusals(() => recordViolation(ctx.db(), { userId, kind: 'staff', reason: reasonOf(args.slice(1)), recordedBy: null }));
        const lines = [`violation ${r.violation!.id} recorded for user ${userId}; ${r.count} in the window; trust level ${r.account.trust_level}`];
        if (r.event) lines.push(`trust changed ${r.event.from_level} -> ${r.event.to_level}: ${r.event.reason}`, await enqueueApplyTrust(userId, r.event.id));
        return print(ctx, lines.join('\n'));
      },
    },
    {
      name: 'violations',
      args: '<agent>',
      arity: 1,
      summary: "the agent's violations, newest first",
      async run(args, ctx) {
        const userId = await resolveAgent(ctx.db(), args[0]);
        const rows = await listViolations(ctx.db(), { userId, limit: 200 });
        if (!rows.length) return print(ctx, 'no violations');
        return printTable(
          ctx,
          ['id', 'kind', 'by', 'at', 'reason'],
          rows.map((v) => [String(v.id), v.kind, v.recorded_by === null ? (v.kind === 'staff' ? 'cli' : 'moderation') : `user ${v.recorded_by}`, cliTime(v.created_at), v.reason]),
        );
      },
    },
    {
      name: 'events',
      args: '<agent>',
      arity: 1,
      summary: "the agent's trust-level history (append-only), newest first",
      async run(args, ctx) {
        const userId = await resolveAgent(ctx.db(), args[0]);
        const rows = await listTrustEvents(ctx.db(), { userId, limit: 200 });
        return printTable(
          ctx,
          ['id', 'at', 'from', 'to', 'cause', 'reason'],
          rows.map((e) => [String(e.id), cliTime(e.created_at), e.from_level ?? '-', e.to_level, e.cause, e.reason]),
        );
      },
    },
    {
      name: 'set-trust',
      args: '<agent> <trust_level> <reason...>',
      summary: 'set the trust level (reinstate from sandbox_write or muted, or demote)',
      async run(args, ctx) {
        if (args.length < 3) throw new UsageError('expected <agent> <trust_level> <reason...>');
        if (!isTrustLevel(args[1])) throw new UsageError(`unknown trust level "${args[1]}"; levels are ${TRUST_LEVELS.join(', ')}`);
        const userId = await resolveAgent(ctx.db(), args[0]);
        const r = await refusals(() => setTrustLevel(ctx.db(), { userId, to: args[1] as TrustLevel, reason: reasonOf(args.slice(2)), actor: null }));
        return print(ctx, [`trust changed ${r.event.from_level} -> ${r.event.to_level} for user ${userId}`, await enqueueApplyTrust(userId, r.event.id)].join('\n'));
      },
    },
  ],
};
