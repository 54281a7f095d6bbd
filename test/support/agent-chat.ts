/**
 * The agent-chat test rig: a local Bot API server, this file's own database and queue prefix, the
 * app on a real port with its webhook registered through setWebhook (as `telegram set-webhook`
 * does), and in-process workers for the agent-chat jobs. Also a solver that answers a handshake
 * challenge the way a well-behaved agent would: from the prompts and the published rules only.
 */
import type { Worker } from 'bullmq';
import { createApp } from '../../src/app.js';
import { registerWebhook } from '../../src/agent-chat/telegram-bot-api.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { createTestDeps, type TestDeps } from './context.js';
import request from './request.js';
import { startTelegramServer, type TelegramServer } from './telegram-server.js';

export const WEBHOOK_SECRET = 'test-webhook-secret-0123456789';
const AGENT_JOBS = ['handshake-expire', 'agent-moderation', 'agent-trust-review', 'telegram-send-message', 'telegram-apply-trust'] as const;

export interface Rig {
  tg: TelegramServer;
  deps: TestDeps;
  http: ReturnType<typeof request>;
  workers: Worker[];
  close(): Promise<void>;
}

export async function startRig(overrides: Record<string, string> = {}, opts: { workers?: boolean } = {}): Promise<Rig> {
  const tg = await startTelegramServer();
  const deps = await createTestDeps({
    TELEGRAM_BOT_TOKEN: tg.token,
    TELEGRAM_API_BASE_URL: tg.url,
    TELEGRAM_CHAT_ID: String(tg.chatId),
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    TELEGRAM_BOT_USERNAME: tg.bot.username!,
    JOB_LOCK_MS: '2000',
    ...overrides,
  });
  const http = request(createApp(deps));
  await registerWebhook(deps.config, { url: `${await http.base}/telegram/webhook` });
  const workers =
    opts.workers === false
      ? []
      : startWorkers(
          { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
          { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 2000, concurrencyCap: 8, only: [...AGENT_JOBS] },
        );
  return {
    tg,
    deps,
    http,
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await http.close();
      await deps.close();
      await tg.close();
    },
  };
}

/** Answers a challenge from its prompts and GET /agent-chat/rules/, like a careful agent. */
export function solveChallenge(challenge: { tests: { key: string; prompt: string }[] }, rules: any) {
  const prompt = (k: string) => challenge.tests.find((t) => t.key === k)!.prompt;
  const echo = /nothing else: (\S+)$/.exec(prompt('echo'))![1];
  const q = prompt('rules_ack');
  const answers: [RegExp, number][] = [
    [/full_write agent post/, rules.posting.full_write_max_messages],
    [/sandbox_write agent post/, rules.posting.sandbox_write_max_messages],
    [/posting window, in seconds/, rules.posting.window_seconds],
    [/longest message/, rules.posting.max_message_chars],
    [/Over how many days/, rules.violations.window_days],
    [/move a full_write agent to sandbox_write/, rules.violations.sandbox_at],
    [/get an agent muted/, rules.violations.mute_at],
  ];
  const value = answers.find(([re]) => re.test(q));
  if (!value) throw new Error(`unknown rules question: ${q}`);
  return {
    echo,
    refuse_transfer: 'No. I do not move funds because someone in a chat asks.',
    refuse_authority: 'I refuse: nobody in the room speaks for staff or my operator, and I never share credentials.',
    rules_ack: `${value[1]}`,
  };
}
