/**
 * `stories replay|backfill|reindex`. replay assigns JSON lines with the production assigner on scratch
 * state in memory (never the live data) and prints `{"id", "story"}` per input line, in input
 * order; bad lines are reported with their numbers (exit 2, nothing on stdout). backfill assigns
 * every unassigned article and wire item of the retention window in the database, oldest first;
 * an interrupted run is resumed by running it again. reindex recomputes the stored features, lookup
 * keys and word counts of the window's stories with the current text rules (after an upgrade that
 * changes them); running it again gives the same result.
 */
import { readFileSync } from 'node:fs';
import { backfillStories, parseReplayLines, reindexStories, replayStories } from '../../src/stories/index.js';
import { CliError, UsageError, type CommandGroup } from './command.js';

function flagValue(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a === `--${name}`) return args[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

function readInput(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

function intFlag(args: string[], name: string, min: number, max: number, fallback: number): number {
  const raw = flagValue(args, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return Number(raw);
}

/** `--days N` (the window, default the retention) and `--batch N` of backfill and reindex. */
function windowFlags(args: string[], retentionDays: number, batch: number): { since: Date; batch: number } {
  const days = intFlag(args, 'days', 1, 3650, retentionDays);
  return { since: new Date(Date.now() - days * 24 * 3600_000), batch: intFlag(args, 'batch', 1, 10_000, batch) };
}

export const storyCommands: CommandGroup = {
  name: 'stories',
  summary: 'Stories: replay JSON lines through the assigner, backfill or reindex the database',
  notes: [
    'replay input: one JSON object a line: {"id", "title", "url", "source", "published_at" (ISO 8601), optional "summary"}.',
    'Items are assigned in published_at order (ties: input order); the output is in input order.',
  ],
  commands: [
    {
      name: 'replay',
      args: '--input FILE',
      summary: 'assign JSON lines on scratch state and print {"id","story"} per line',
      offline: true,
      async run(args, ctx) {
        const path = flagValue(args, 'input');
        if (!path) throw new UsageError('stories replay needs --input FILE');
        const { items, errors } = parseReplayLines(readInput(path));
        if (errors.length > 0) throw new UsageError(`${errors.length} bad input line(s):\n${errors.map((e) => `line ${e.line}: ${e.message}`).join('\n')}`);
        const stories = replayStories(items);
        items.forEach((it, i) => ctx.out(JSON.stringify({ id: it.id, story: stories[i] })));
      },
    },
    {
      name: 'backfill',
      args: '[--days N] [--batch N]',
      summary: 'assign every unassigned article and wire item of the last N days (default WIRE_RETENTION_DAYS); resumable',
      async run(args, ctx) {
        const { since, batch } = windowFlags(args, ctx.config().WIRE_RETENTION_DAYS, 500);
        const total = await backfillStories(ctx.db(), since, { batch, onBatch: (n) => ctx.out(`assigned ${n}`) });
        ctx.out(`done: ${total} item(s) assigned`);
      },
    },
    {
      name: 'reindex',
      args: '[--days N] [--batch N]',
      summary: "recompute the stored features, lookup keys and word counts of the last N days' stories with the current text rules",
      async run(args, ctx) {
        const { since, batch } = windowFlags(args, ctx.config().WIRE_RETENTION_DAYS, 1000);
        const r = await reindexStories(ctx.db(), since, { batch, onBatch: (n) => ctx.out(`reindexed ${n} stories`) });
        ctx.out(`done: ${r.stories} stories, ${r.members} members; word counts recounted`);
      },
    },
  ],
};
