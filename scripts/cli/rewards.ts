/**
 * `rewards allocation|allocations|leaderboards|distribute|show`: the DAO's monthly split of the reward
 * pool, leaderboard recomputes, and running a month's distribution by hand (the clock runs it at
 * 00:05 UTC on the 1st; running it again is harmless).
 */
import { runLeaderboards } from '../../jobs/leaderboards.js';
import { CATEGORIES, formatTokens, MONTH_PATTERN, percentToBp, validateAllocation, type AllocationBp, type Category } from '../../src/rewards/rules/rewards.js';
import { allocationFor, getDistribution, listAllocations, setAllocation } from '../../src/rewards/queries.js';
import { distributeMonth, type DistributionSummary } from '../../src/rewards/service.js';
import { CliError, formatTable, UsageError, type CommandGroup, printTable } from './command.js';

function parseMonth(input: string | undefined): string {
  if (!input || !MONTH_PATTERN.test(input)) throw new UsageError(`"${input ?? ''}" is not a month; write it as YYYY-MM, e.g. 2026-12`);
  return input;
}

const tokens = (units: string) => formatTokens(BigInt(units));

function summaryTable(s: Pick<DistributionSummary, 'allocation' | 'totals'>): string[] {
  const rows = CATEGORIES.map((c: Category) => [
    c,
    `${s.allocation?.[c].percent ?? 0}%`,
    tokens(s.totals?.[c].allocated ?? '0'),
    tokens(s.totals?.[c].distributed ?? '0'),
    String(s.totals?.[c].recipients ?? 0),
  ]);
  return formatTable(['category', 'share', 'allocated', 'distributed', 'recipients'], rows);
}

export const rewardCommands: CommandGroup = {
  name: 'rewards',
  summary: 'reward pool: DAO allocation per month, leaderboards, monthly distribution',
  notes: [
    'The pool is 1,000,000 SQUID a month. `allocation` records the split the DAO voted (in the month before) for a month;',
    'a month without one uses the last earlier split, and 25% each when none was ever recorded.',
    'Percentages take at most two decimals and must add up to 100.',
    "distribute freezes the month's leaderboard, splits each category exactly (18-decimal units, largest remainder),",
    'and stores the Merkle root and every proof. A distributed month never changes; running it again prints the stored result.',
  ],
  commands: [
    {
      name: 'allocation',
      args: '<YYYY-MM> <posters%> <yappers%> <voters%> <editors%> [note]',
      summary: "record the DAO's split of a month's pool (replaces an earlier one for that month)",
      async run(args, ctx) {
        if (args.length < 5 || args.length > 6) throw new UsageError('expected <YYYY-MM> <posters%> <yappers%> <voters%> <editors%> [note]');
        const month = parseMonth(args[0]);
        const bp = {} as AllocationBp;
        CATEGORIES.forEach((c, i) => {
          const v = percentToBp(args[i + 1]);
          if (v === null) throw new UsageError(`${c}: "${args[i + 1]}" is not a percentage between 0 and 100 with at most two decimals`);
          bp[c] = v;
        });
        const problem = validateAllocation(bp);
        if (problem) throw new UsageError(problem);
        if (await getDistribution(ctx.db(), month)) throw new CliError(`${month} was already distributed; its allocation can no longer change`);
        await setAllocation(ctx.db(), month, bp, args[5] ?? null);
        ctx.out(`allocation for ${month}: ${CATEGORIES.map((c) => `${c} ${bp[c] / 100}%`).join(', ')}`);
      },
    },
    {
      name: 'allocations',
      args: '[YYYY-MM]',
      summary: 'list recorded splits, or show the split in effect for a month',
      async run(args, ctx) {
        if (args.length > 1) throw new UsageError('expected [YYYY-MM]');
        if (args[0]) {
          const a = await allocationFor(ctx.db(), parseMonth(args[0]));
          ctx.out(`${a.month}: ${a.source}${a.from_month && a.source !== 'set' ? ` (from ${a.from_month})` : ''}`);
          printTable(
            ctx,
            ['category', 'share'],
            CATEGORIES.map((c) => [c, `${a.bp[c] / 100}%`]),
          );
          return;
        }
        const rows = await listAllocations(ctx.db());
        if (!rows.length) {
          ctx.out('no allocation recorded: every month uses 25% per category');
          return;
        }
        printTable(
          ctx,
          ['month', 'posters', 'yappers', 'voters', 'editors', 'note'],
          rows.map((r) => [r.month, ...[r.top_posters_bp, r.top_yappers_bp, r.top_voters_bp, r.top_editors_bp].map((b) => `${b / 100}%`), r.note ?? '']),
        );
      },
    },
    {
      name: 'leaderboards',
      args: '[YYYY-MM]',
      summary: 'recompute leaderboard snapshots now (a month, or the scheduled set)',
      async run(args, ctx) {
        if (args.length > 1) throw new UsageError('expected [YYYY-MM]');
        const results = await runLeaderboards(ctx.db(), args[0] ? { month: parseMonth(args[0]) } : {});
        printTable(
          ctx,
          ['month', 'result', 'entries', 'ms'],
          results.map((r) => [r.month, r.computed ? 'computed' : 'frozen (unchanged)', String(r.entries), String(r.ms)]),
        );
      },
    },
    {
      name: 'distribute',
      args: '<YYYY-MM>',
      arity: 1,
      summary: 'close a finished month: freeze, split, Merkle root and proofs; print a summary',
      async run(args, ctx) {
        const month = parseMonth(args[0]);
        const s = await distributeMonth(ctx.db(), month);
        if (s.status === 'month_not_over') throw new CliError(`${month} is not over yet (months close at 00:00 UTC on the 1st)`);
        ctx.out(s.status === 'distributed' ? `distributed ${month}` : `${month} was already distributed on ${s.created_at}; nothing changed`);
        ctx.out(`merkle root: ${s.merkle_root ?? '(none: nobody took part)'}`);
        ctx.out(`recipients:  ${s.recipients}`);
        ctx.out(`distributed: ${tokens(s.total_distributed)} of ${tokens(s.pool_amount)} SQUID`);
        ctx.out('');
        ctx.out(summaryTable(s).join('\n'));
      },
    },
    {
      name: 'show',
      args: '<YYYY-MM>',
      arity: 1,
      summary: "print a distributed month's summary",
      async run(args, ctx) {
        const month = parseMonth(args[0]);
        const d = await getDistribution(ctx.db(), month);
        if (!d) throw new CliError(`${month} has not been distributed`);
        ctx.out(`${month}: root ${d.merkle_root ?? '(none)'}, ${d.recipients} recipients, ${tokens(d.total_distributed)} SQUID, at ${d.created_at.toISOString()}`);
        ctx.out(summaryTable({ allocation: d.allocation as DistributionSummary['allocation'], totals: d.totals as DistributionSummary['totals'] }).join('\n'));
      },
    },
  ],
};
