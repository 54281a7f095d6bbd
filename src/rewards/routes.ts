/**
 * Public reward data: the allocation in effect for a month and the published monthly distributions
 * (root, totals, every drop; a single drop with its proof), so anyone can rebuild the Merkle tree
 * and check the root. Amounts are integer strings in base units (18 decimals).
 */
import { isAddress } from 'viem';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { allocationTokens, CATEGORIES, MONTH_PATTERN, monthOf, POOL_UNITS, TOKEN_DECIMALS } from './rules/rewards.js';
import { LEAF_ENCODING } from './rules/reward-tree.js';
import { DomainError } from '../platform/errors/index.js';
import { errorCodes } from '../platform/errors/codes.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { allocationFor, dropOf, dropsOfMonth, getDistribution, listDistributions, type DistributionRow } from './queries.js';
import { dropSchema, toDrop } from '../profile/index.js';

const perCategory = <T extends z.ZodType>(t: T) => z.object(Object.fromEntries(CATEGORIES.map((k) => [k, t])) as Record<(typeof CATEGORIES)[number], T>);
const month = z.string().regex(MONTH_PATTERN, 'must be YYYY-MM');

const summarySchema = z
  .object({
    month: z.string(),
    merkle_root: z.string().nullable().meta({ description: 'null when nobody took part' }),
    leaf_encoding: z.array(z.string()).meta({ description: "['address', 'uint256'] (OpenZeppelin StandardMerkleTree)" }),
    decimals: z.number().int(),
    pool_amount: z.string().meta({ description: '1,000,000 tokens in base units' }),
    total_distributed: z.string().meta({ description: 'Sum of all drops; equals the pool minus the allocations of categories nobody took part in' }),
    recipients: z.number().int(),
    allocation: perCategory(z.object({ percent: z.number(), amount: z.string() })),
    totals: perCategory(z.object({ allocated: z.string(), distributed: z.string(), recipients: z.number().int() })),
    created_at: z.string(),
  })
  .meta({ id: 'RewardDistribution' });

const distributionSchema = summarySchema
  .extend({
    drops: z
      .array(z.object({ address: z.string(), amount: z.string(), breakdown: perCategory(z.string()) }))
      .meta({ description: 'Every leaf (address, amount), largest first; proofs at /rewards/distributions/<month>/<address>/' }),
  })
  .meta({ id: 'RewardDistributionWithDrops' });

function summaryBody(d: DistributionRow) {
  const alloc = d.allocation as Record<string, { percent: number; amount: string }>;
  return {
    month: d.month,
    merkle_root: d.merkle_root,
    leaf_encoding: [...LEAF_ENCODING],
    decimals: TOKEN_DECIMALS,
    pool_amount: d.pool_amount,
    total_distributed: d.total_distributed,
    recipients: d.recipients,
    allocation: Object.fromEntries(CATEGORIES.map((c) => [c, alloc[c]])),
    totals: d.totals,
    created_at: d.created_at.toISOString(),
  };
}

function allocationRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/rewards/allocation/',
    operationId: 'getRewardAllocation',
    summary: 'How the 1,000,000-token pool of a month is split among the four categories',
    description:
      'The split set for the month (decided by the DAO vote of the month before, recorded with the admin CLI); when none was set, the last earlier one stays in force (source carried); when none was ever set, 25% each (source default).',
    tags: ['rewards'],
    query: z.strictObject({ month: month.optional().meta({ description: 'YYYY-MM, default the current UTC month' }) }),
    responses: {
      200: {
        description: 'allocation',
        schema: z.object({
          month: z.string(),
          source: z.enum(['set', 'carried', 'default']),
          from_month: z.string().nullable(),
          pool_tokens: z.number(),
          allocation: perCategory(z.object({ percent: z.number(), tokens: z.number() })),
        }),
      },
    },
    async handler(ctx, { query }) {
      const a = await allocationFor(deps.db, query.month ?? monthOf(new Date()));
      const tokens = allocationTokens(a.bp);
      ctx.body = {
        month: a.month,
        source: a.source,
        from_month: a.from_month,
        pool_tokens: Number(POOL_UNITS / 10n ** BigInt(TOKEN_DECIMALS)),
        allocation: Object.fromEntries(CATEGORIES.map((c) => [c, { percent: a.bp[c] / 100, tokens: tokens[c] }])),
      };
    },
  });
}

function distributionsRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/rewards/distributions/',
    operationId: 'listRewardDistributions',
    summary: 'Distributed months, newest first (root and totals)',
    tags: ['rewards'],
    query: z.strictObject({ limit: queryInt({ min: 1, max: 120, default: 24 }) }),
    responses: { 200: { description: 'distributions', schema: z.object({ results: z.array(summarySchema) }) } },
    async handler(ctx, { query }) {
      const rows = await listDistributions(deps.db, query.limit);
      ctx.body = { results: rows.map(summaryBody) };
    },
  });
}

function distributionRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/rewards/distributions/:month/',
    operationId: 'getRewardDistribution',
    summary: "A month's distribution: Merkle root, totals and every drop (address, amount)",
    description: `Rebuild the tree with StandardMerkleTree.of(drops.map(d => [d.address, d.amount]), ['address', 'uint256']) and compare roots. \`distribution_not_found\`: ${errorCodes.distribution_not_found.description}`,
    tags: ['rewards'],
    params: z.object({ month }),
    responses: { 200: { description: 'distribution', schema: distributionSchema }, 404: { description: 'distribution_not_found' } },
    async handler(ctx, { params }) {
      const d = await getDistribution(deps.db, params.month);
      if (!d) throw new DomainError('distribution_not_found', `no distribution for ${params.month}`);
      const drops = await dropsOfMonth(deps.db, params.month);
      ctx.body = {
        ...summaryBody(d),
        drops: drops.map((r) => ({
          address: r.address,
          amount: r.amount,
          breakdown: { top_posters: r.top_posters, top_yappers: r.top_yappers, top_voters: r.top_voters, top_editors: r.top_editors },
        })),
      };
    },
  });
}

function dropRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/rewards/distributions/:month/:address/',
    operationId: 'getRewardDrop',
    summary: "One address's drop of a month with its Merkle proof",
    description: `\`drop_not_found\`: ${errorCodes.drop_not_found.description}`,
    tags: ['rewards'],
    params: z.object({ month, address: z.string().refine((v) => isAddress(v, { strict: false }), 'must be an Ethereum address') }),
    responses: { 200: { description: 'drop', schema: dropSchema }, 404: { description: 'drop_not_found' } },
    async handler(ctx, { params }) {
      const d = await dropOf(deps.db, params.month, params.address);
      if (!d) throw new DomainError('drop_not_found', `no drop for ${params.address} in ${params.month}`);
      ctx.body = toDrop(d);
    },
  });
}

export function rewardRoutes(deps: AppDeps): RouteDef[] {
  return [allocationRoute(deps), distributionsRoute(deps), distributionRoute(deps), dropRoute(deps)];
}
