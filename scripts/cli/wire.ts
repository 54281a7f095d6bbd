/**
 * `wire add|list|remove|enable|disable|fetch`: the wire ("tsunami") sources the worker polls.
 * Removing a source keeps its items and receipts (they are provenance records). `fetch` queues an
 * immediate wire-fetch for a worker and waits for it briefly; `--inline` runs the fetch in this
 * process instead (no worker needed).
 */
import { job as wireFetch } from '../../jobs/wire-fetch.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Db } from '../../src/platform/db.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { addSource, fetchSourceSoon, findSource, listSources, removeSource, setSourceEnabled } from '../../src/wire/queries.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { CliError, expectArgs, UsageError, type CommandGroup, cliTime, printTable } from './command.js';
import { jobs } from '../../jobs/index.js';

function parseFlags(args: string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (const a of args) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (m) flags.set(m[1], m[2] ?? 'true');
    else positional.push(a);
  }
  return { positional, flags };
}

function numberFlag(flags: Map<string, string>, name: string, min: number, max: number, integer: boolean): number | undefined {
  const raw = flags.get(name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return n;
}

function parseFeedUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`"${raw}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError('the feed URL must be http:// or https://');
  if (u.username || u.password) throw new UsageError('the feed URL must not carry credentials');
  return u.href;
}

async function sourceOrFail(db: Db, target: string) {
  const s = await findSource(db, target);
  if (!s) throw new CliError(`no wire source "${target}" (give its id or name; see \`wire list\`)`);
  return s;
}

export const wireCommands: CommandGroup = {
  name: 'wire',
  summary: 'Wire ("tsunami") sources: RSS 2.0, Atom and JSON Feed URLs polled by the worker',
  notes: [
    'Each enabled source is fetched every --every seconds (default 300) with a conditional GET; a failing source backs off exponentially (up to WIRE_BACKOFF_MAX_S).',
    "--weight (0-10, default 1) multiplies the novelty score of the source's items when the worker picks items to promote into the editors' queue.",
    'Feed URLs resolving to private or loopback addresses are refused at fetch time unless OUTBOUND_ALLOW_PRIVATE is set.',
  ],
  commands: [
    {
      name: 'add',
      args: '<name> <feed-url> [--weight=1] [--every=300]',
      summary: 'add a source (fetched within a minute by the worker)',
      async run(args, ctx) {
        const { positional, flags } = parseFlags(args);
        expectArgs(positional, 2, '<name> <feed-url>');
        for (const k of flags.keys()) if (k !== 'weight' && k !== 'every') throw new UsageError(`unknown option --${k}`);
        const name = positional[0].trim();
        if (name.length < 1 || name.length > 100 || /^\d+$/.test(name)) throw new UsageError('the name must be 1-100 characters and not only digits');
        const url = parseFeedUrl(positional[1]);
        try {
          const s = await addSource(ctx.db(), { name, url, weight: numberFlag(flags, 'weight', 0, 10, false), pollIntervalS: numberFlag(flags, 'every', 10, 86_400, true) });
          ctx.out(`added wire source ${s.id} "${s.name}" ${s.url} (weight ${s.weight}, every ${s.poll_interval_s} s)`);
        } catch (err) {
          if ((err as { code?: string }).code === '23505') throw new CliError('a wire source with this name or URL exists already (see `wire list`)');
          throw err;
        }
      },
    },
    {
      name: 'list',
      args: '',
      arity: 0,
      summary: 'list sources with their fetch state',
      async run(args, ctx) {
        const rows = await listSources(ctx.db());
        if (rows.length === 0) return ctx.out('no wire sources (add one with `wire add <name> <feed-url>`)');
        printTable(
          ctx,
          ['id', 'name', 'url', 'weight', 'every', 'enabled', 'format', 'last', 'failures', 'next fetch', 'items', 'last error'],
          rows.map((s) => [
            String(s.id),
            s.name,
            s.url,
            String(s.weight),
            `${s.poll_interval_s}s`,
            s.enabled ? 'yes' : 'no',
            s.format ?? '-',
            s.last_status === null ? '-' : String(s.last_status),
            String(s.consecutive_failures),
            cliTime(s.next_fetch_at),
            String(s.items_ingested),
            s.last_error ? s.last_error.slice(0, 60) : '-',
          ]),
        );
      },
    },
    {
      name: 'remove',
      args: '<id|name>',
      arity: 1,
      summary: 'remove a source (its items and receipts stay)',
      async run(args, ctx) {
        const s = await sourceOrFail(ctx.db(), args[0]);
        await removeSource(ctx.db(), s.id);
        ctx.out(`removed wire source ${s.id} "${s.name}" (${s.items_ingested} items it brought in stay as provenance records)`);
      },
    },
    {
      name: 'enable',
      args: '<id|name>',
      arity: 1,
      summary: 'resume polling a source (fetched at the next round)',
      async run(args, ctx) {
        const s = await sourceOrFail(ctx.db(), args[0]);
        await setSourceEnabled(ctx.db(), s.id, true);
        await fetchSourceSoon(ctx.db(), s.id);
        ctx.out(`enabled wire source ${s.id} "${s.name}"`);
      },
    },
    {
      name: 'disable',
      args: '<id|name>',
      arity: 1,
      summary: 'stop polling a source (kept, with its items)',
      async run(args, ctx) {
        const s = await sourceOrFail(ctx.db(), args[0]);
        await setSourceEnabled(ctx.db(), s.id, false);
        ctx.out(`disabled wire source ${s.id} "${s.name}"`);
      },
    },
    {
      name: 'fetch',
      args: '<id|name> [--inline]',
      summary: 'fetch a source now (queued for a worker, or --inline in this process)',
      async run(args, ctx) {
        const { positional, flags } = parseFlags(args);
        expectArgs(positional, 1, '<id|name>');
        for (const k of flags.keys()) if (k !== 'inline') throw new UsageError(`unknown option --${k}`);
        const s = await sourceOrFail(ctx.db(), positional[0]);
        if (!s.enabled) throw new CliError(`wire source "${s.name}" is disabled (run \`wire enable ${s.id}\` first)`);
        const config = loadConfig();
        const redis = createRedis(config.REDIS_URL, 'command', 'cli');
        const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
        const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX);
        try {
          let result: unknown;
          if (flags.has('inline')) {
            const log = createLogger('cli', 'silent');
            try {
              result = await wireFetch.run({ source_id: s.id }, { config, db: ctx.db(), redis, events, log, enqueue: queue.enqueuer }, { attempt: 1, jobId: 'cli-inline' });
            } catch (err) {
              throw new CliError(`fetch of "${s.name}" failed: ${(err as Error).message}`);
            }
          } else {
            const r = await queue.enqueueAndWait('wire-fetch', { source_id: s.id }, 15_000).catch((err: Error) => {
              throw new CliError(`fetch of "${s.name}" failed: ${err.message}`);
            });
            if (r.state === 'pending') return ctx.out(`queued wire-fetch job ${r.jobId} for "${s.name}"; no result within 15 s (is a worker running?)`);
            result = r.result;
          }
          const res = result as { status?: number; format?: string; items?: number; created?: number; receipts?: number };
          ctx.out(
            `fetched "${s.name}": HTTP ${res.status ?? '-'}${res.format ? `, ${res.format}` : ''}, ${res.items ?? 0} items, ${res.created ?? 0} new, ${res.receipts ?? 0} receipts`,
          );
        } finally {
          await queue.close();
          redis.disconnect();
        }
      },
    },
  ],
};
