/**
 * `webhooks list|deliveries|redeliver`: every webhook endpoint with its owner and state, one
 * endpoint's deliveries (newest first), and sending a finished delivery again (same webhook-id).
 * An operator's view: it sees every owner's endpoints (the API shows each caller only its own).
 */
import { QueueClient } from '../../src/platform/queue.js';
import { findDeliveryById, findEndpointById, listAllEndpoints, listDeliveries, rearmDelivery } from '../../src/webhooks/queries.js';
import { createRedis } from '../../src/platform/redis.js';
import { messageId, wakeEndpoint } from '../../src/webhooks/deliver.js';
import { CliError, expectArgs, UsageError, type CommandGroup, cliTime, printTable } from './command.js';
import { jobs } from '../../jobs/index.js';

const STATES = ['pending', 'succeeded', 'failed', 'cancelled'];

function parseFlags(args: string[], allowed: string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (const a of args) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) positional.push(a);
    else if (!allowed.includes(m[1])) throw new UsageError(`unknown option --${m[1]}`);
    else flags.set(m[1], m[2] ?? 'true');
  }
  return { positional, flags };
}

function positiveId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export const webhookCommands: CommandGroup = {
  name: 'webhooks',
  summary: 'Webhook endpoints and their deliveries (all owners)',
  notes: [
    "Deliveries are made by the worker (webhook-deliver) and retried on schedule; the clock's webhook-sweep wakes due ones every second.",
    '`redeliver` starts a finished delivery over (pending, due now, attempts from 0) with the same webhook-id; a pending one keeps its own schedule.',
  ],
  commands: [
    {
      name: 'list',
      args: '',
      arity: 0,
      summary: 'every endpoint: owner, URL, state, pending deliveries, last attempt',
      async run(args, ctx) {
        const rows = await listAllEndpoints(ctx.db());
        if (rows.length === 0) return ctx.out('no webhook endpoints');
        printTable(
          ctx,
          ['id', 'owner', 'url', 'state', 'types', 'filters', 'pending', 'last attempt', 'failing since', 'reason'],
          rows.map((e) => {
            const filters = [
              e.filter_tags ? `tags=${e.filter_tags.join(',')}` : '',
              e.filter_token_symbols ? `symbols=${e.filter_token_symbols.join(',')}` : '',
              e.filter_token_addresses ? `addresses=${e.filter_token_addresses.length}` : '',
            ].filter(Boolean);
            return [
              String(e.id),
              e.user_id !== null ? `user:${e.user_id}` : `key:${e.api_key_id}`,
              e.url,
              e.enabled ? 'enabled' : 'disabled',
              e.event_types.map((t) => t.replace(/^news\./, '')).join(','),
              filters.length ? filters.join(' ') : '-',
              String(e.pending),
              cliTime(e.last_delivery_at),
              cliTime(e.failing_since),
              e.disabled_reason ? e.disabled_reason.slice(0, 60) : '-',
            ];
          }),
        );
      },
    },
    {
      name: 'deliveries',
      args: '<endpoint-id> [--limit=20] [--state=pending|succeeded|failed|cancelled]',
      summary: "an endpoint's deliveries, newest first",
      async run(args, ctx) {
        const { positional, flags } = parseFlags(args, ['limit', 'state']);
        expectArgs(positional, 1, '<endpoint-id>');
        const id = positiveId(positional[0], 'the endpoint id');
        const limitRaw = flags.get('limit') ?? '20';
        if (!/^\d+$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
        const state = flags.get('state');
        if (state !== undefined && !STATES.includes(state)) throw new UsageError(`--state must be one of ${STATES.join(', ')}`);
        if (!(await findEndpointById(ctx.db(), id))) throw new CliError(`no webhook endpoint ${id} (see \`webhooks list\`)`);
        const rows = await listDeliveries(ctx.db(), id, { limit: Number(limitRaw), state });
        if (rows.length === 0) return ctx.out(`no deliveries for endpoint ${id}${state ? ` in state ${state}` : ''}`);
        printTable(
          ctx,
          ['id', 'webhook-id', 'event', 'type', 'state', 'attempts', 'last', 'latency', 'next attempt', 'created'],
          rows.map((d) => [
            String(d.id),
            messageId(d.id),
            d.event_id === null ? '-' : String(d.event_id),
            d.event_type,
            d.state,
            String(d.attempts),
            d.last_error ?? (d.last_status === null ? '-' : String(d.last_status)),
            d.last_latency_ms === null ? '-' : `${d.last_latency_ms}ms`,
            d.state === 'pending' ? cliTime(d.next_attempt_at) : '-',
            cliTime(d.created_at),
          ]),
        );
      },
    },
    {
      name: 'redeliver',
      args: '<delivery-id>',
      arity: 1,
      summary: 'send a finished delivery again now (same webhook-id)',
      async run(args, ctx) {
        const id = positiveId(args[0], 'the delivery id');
        const d = await findDeliveryById(ctx.db(), id);
        if (!d) throw new CliError(`no delivery ${id}`);
        const ep = await findEndpointById(ctx.db(), d.endpoint_id);
        if (!ep?.enabled) throw new CliError(`endpoint ${d.endpoint_id} is disabled (${ep?.disabled_reason ?? 'gone'}); its owner re-enables it with PATCH {"enabled": true}`);
        const r = await rearmDelivery(ctx.db(), d.endpoint_id, id);
        if (!r.ok && r.reason === 'pending')
          throw new CliError(`delivery ${id} is still pending (next attempt ${cliTime(r.row!.next_attempt_at)}); only finished deliveries can be redelivered`);
        if (!r.ok) throw new CliError(r.reason === 'event_expired' ? `the event of delivery ${id} was deleted by retention` : `no delivery ${id}`);
        const config = ctx.config();
        const redis = createRedis(config.REDIS_URL, 'command', 'cli');
        redis.on('error', () => undefined);
        const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX);
        let woke = true;
        try {
          await Promise.race([wakeEndpoint(queue.enqueuer, d.endpoint_id), new Promise((_, reject) => setTimeout(() => reject(new Error('Redis did not answer')), 5000))]);
        } catch {
          woke = false;
        } finally {
          await queue.close();
          redis.disconnect();
        }
        ctx.out(
          `delivery ${id} (${messageId(id)}, ${d.event_type}) to endpoint ${d.endpoint_id} is pending again${woke ? '; a worker sends it now' : '; the webhook sweep sends it once Redis and a worker are up'}`,
        );
      },
    },
  ],
};
