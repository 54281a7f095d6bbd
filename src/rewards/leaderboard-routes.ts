/**
 * GET /leaderboards/: serves the stored snapshots (jobs/leaderboards.ts computes them every 5 minutes;
 * clients poll). Board definitions: src/rewards/leaderboard-queries.ts.
 */
import { getAddress } from 'viem';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { creditedShare } from './rules/credited.js';
import { BOARDS, MONTH_PATTERN, monthOf, type Board } from './rules/rewards.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { getSnapshot, topEntries, type BoardTotals } from './leaderboard-queries.js';

const BOARD_INFO: Record<Board, { label: string; metric: string }> = {
  top_posters: { label: 'News submissions', metric: 'approved submissions that went live this month' },
  top_yappers: { label: 'Comment quality', metric: 'net score of yaps written this month (base score plus votes from other users)' },
  top_voters: { label: 'Voting activity', metric: "votes cast this month on other users' articles and yaps" },
  top_editors: { label: 'Editorial reviews', metric: 'submissions reviewed (approved, killed or scheduled) this month, own submissions excluded' },
  engagement: { label: 'Overall engagement', metric: 'score: sum of the four category market shares; activity_count: contributions counted on the four boards' },
};

const entrySchema = z.object({
  rank: z.number().int().meta({ description: 'Standard competition ranking: equal scores share a rank, the next rank skips (1, 2, 2, 4)' }),
  user: z.object({
    id: z.number().int(),
    username: z.string().nullable(),
    ethereum_address: z.string(),
    display_name: z.string().nullable(),
    profile_picture: z.string().nullable(),
    account_type: z.string(),
  }),
  activity_count: z.number().meta({ description: "The board's measure (see metric); on engagement, the number of counted contributions" }),
  score: z.number().meta({
    description:
      'What is ranked and paid: on the four category boards, the credited activity (activity_count weighted by the credibility of each vote, yap and submission, votes by their curation value; equal to activity_count in a month scored without credibility, see docs/rewards.md); engagement points on engagement',
  }),
  credited_share: z.number().nullable().optional().meta({
    description:
      'With include=credited only: how much of activity_count counted, score / activity_count, 0..1 (4 decimals); null on engagement or when activity_count is not positive',
  }),
  market_share: z.number().meta({ description: "Percent of the board's monthly total (0..100, 4 decimals)" }),
});

const boardSchema = z.object({
  label: z.string(),
  metric: z.string(),
  total: z.number().meta({ description: 'Sum of score over every ranked user this month' }),
  participants: z.number().int().meta({ description: 'Ranked users this month' }),
  entries: z.array(entrySchema).meta({ description: 'Top `limit` entries by rank, then user id' }),
});

const leaderboardsResponse = z
  .object({
    month: z.string().meta({ description: 'YYYY-MM (UTC)' }),
    computed_at: z.string().nullable().meta({ description: 'When the snapshot was computed; null when the month has none yet' }),
    frozen: z.boolean().meta({ description: 'True once the month was closed by the monthly distribution (final)' }),
    boards: z.partialRecord(z.enum(BOARDS), boardSchema).meta({ description: 'The requested board, or all five' }),
  })
  .meta({ id: 'Leaderboards' });

export function leaderboardRoutes(deps: AppDeps): RouteDef[] {
  const base = deps.config.PUBLIC_BASE_URL;
  return [
    defineRoute({
      method: 'get',
      path: '/leaderboards/',
      operationId: 'getLeaderboards',
      summary: 'Monthly leaderboards: news submissions, comment quality, voting activity, editorial reviews and overall engagement',
      description: [
        'Served from snapshots recomputed every 5 minutes (poll; see computed_at). A month is final once frozen by the monthly distribution.',
        'Boards: top_posters, top_yappers, top_voters, top_editors (the four reward categories) and engagement.',
        'On the four category boards activity_count is what was done and score what was credited: each vote, yap and submission counts by its credibility (0..1), and a vote by whether it agreed with the eventual judgement; market_share and the monthly distribution use score. The rules users are paid by: docs/rewards.md.',
        "Self-votes and votes on one's own articles or yaps never count. month defaults to the current UTC month; a month without a snapshot returns empty boards.",
      ].join(' '),
      tags: ['leaderboards'],
      query: z.strictObject({
        month: z
          .string()
          .regex(MONTH_PATTERN, 'must be YYYY-MM')
          .refine((m) => m <= monthOf(new Date()), 'must not be after the current month')
          .optional()
          .meta({ description: 'YYYY-MM, default the current UTC month' }),
        board: z
          .enum([...BOARDS, 'all'])
          .default('all')
          .meta({ description: 'One board, or all (default)' }),
        limit: queryInt({ min: 1, max: 100, default: 10 }).meta({ description: 'Entries per board, 1..100, default 10' }),
        include: z.enum(['credited']).optional().meta({ description: 'credited: add credited_share to every entry' }),
      }),
      responses: { 200: { description: 'leaderboards', schema: leaderboardsResponse } },
      async handler(ctx, { query }) {
        const month = query.month ?? monthOf(new Date());
        const boards: readonly Board[] = query.board === 'all' ? BOARDS : [query.board];
        const snapshot = await getSnapshot(deps.db, month);
        const rows = snapshot ? await topEntries(deps.db, month, boards, query.limit) : [];
        const totals = (snapshot?.totals ?? {}) as Partial<Record<Board, BoardTotals>>;
        const out: Record<string, z.infer<typeof boardSchema>> = {};
        for (const b of boards) {
          out[b] = { ...BOARD_INFO[b], total: round4(totals[b]?.total ?? 0), participants: totals[b]?.participants ?? 0, entries: [] };
        }
        for (const r of rows) {
          out[r.board].entries.push({
            rank: r.rank,
            user: {
              id: r.user_id,
              username: r.username,
              ethereum_address: getAddress(r.wallet_address),
              display_name: r.display_name,
              profile_picture: r.profile_picture ? new URL(`/media/profile-pictures/${r.profile_picture}`, base).toString() : null,
              account_type: r.account_type,
            },
            activity_count: Number(r.activity_count),
            score: round4(r.score),
            ...(query.include === 'credited' ? { credited_share: creditedShare(r.board, Number(r.activity_count), r.score) } : {}),
            market_share: round4(r.market_share),
          });
        }
        ctx.set('Cache-Control', 'public, max-age=60');
        ctx.body = { month, computed_at: snapshot?.computed_at.toISOString() ?? null, frozen: !!snapshot?.frozen_at, boards: out };
      },
    }),
  ];
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
