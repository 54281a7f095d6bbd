/**
 * Credibility routes for staff (role `staff`, read from the database): a month's flagged accounts and
 * groups with their evidence, one flag, one account's month, and confirming or clearing a flag or an
 * account. Decisions are kept by every recompute and listed in the public moderation log.
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { pageLinks } from '../articles/index.js';
import { accountView, flagView, listFlags } from './flags-view.js';
import { membersOf, type Decision } from './flags-queries.js';
import { accountNotFound, decideAccount, decideFlag, findFlag, flagNotFound } from './overrides-service.js';
import { FLAG_ID_PATTERN } from './rules/overrides.js';

const FLAG_KINDS = ['ring', 'reciprocal_pair', 'co_voting', 'cohort', 'burst', 'indiscriminate'] as const;
const month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM');
const currentMonth = () => new Date().toISOString().slice(0, 7);
const flagIdParam = z.strictObject({ id: z.string().regex(FLAG_ID_PATTERN, 'must be a flag id <YYYY-MM>.<kind>.<12 hex>') });
const accountIdParam = z.strictObject({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().max(2_147_483_647)),
});
const note = text().trim().max(1000).optional();

const account = z.object({
  id: z.number().int(),
  username: z.string().nullable(),
  address: z.string().nullable(),
  account_type: z.string().nullable(),
  created_at: z.string().nullable(),
});
const decision = z
  .object({ decision: z.enum(['confirmed', 'cleared']), note: z.string().nullable(), decided_by: account.nullable(), decided_at: z.string() })
  .nullable()
  .meta({ description: 'The staff decision in force; null while the flag is open' });
const flagSchema = z
  .object({
    id: z.string().meta({ description: 'Stable id <month>.<kind>.<hash of the members>: the same group keeps it across recomputes' }),
    month: z.string(),
    kind: z.enum(FLAG_KINDS),
    accounts: z.number().int(),
    members: z.array(account),
    evidence: z.record(z.string(), z.union([z.number(), z.string()])).meta({ description: "The detector's figures for this group (kind-specific)" }),
    detected_at: z.string(),
    decision,
  })
  .meta({ id: 'CredibilityFlag' });

const staffErrors = errorResponses({ 401: 'not signed in', 403: 'staff_required' });
const TAGS = ['credibility', 'staff'];

function listRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/credibility/flags/',
    operationId: 'listCredibilityFlags',
    summary: "A month's flagged accounts and groups with their evidence and the decision in force (staff)",
    description: 'Flags of the latest finished recompute of the month (default: the current UTC month), ordered by kind. decision: open (no decision), confirmed or cleared.',
    tags: TAGS,
    auth: 'staff',
    query: z.strictObject({
      month: month.optional(),
      kind: z.enum(FLAG_KINDS).optional(),
      decision: z.enum(['open', 'confirmed', 'cleared']).optional(),
      page: queryInt({ min: 1, max: 100_000, default: 1 }),
      per_page: queryInt({ min: 1, max: 100, default: 50 }),
    }),
    responses: {
      200: {
        description: 'One page of flags',
        schema: z
          .object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(flagSchema) })
          .meta({ id: 'CredibilityFlagPage' }),
      },
      ...staffErrors,
    },
    async handler(ctx, { query }) {
      const { count, results } = await listFlags(deps.db, query.month ?? currentMonth(), { kind: query.kind, decision: query.decision }, query.page, query.per_page);
      ctx.body = { count, ...pageLinks(ctx, deps.config.PUBLIC_BASE_URL, query.page, query.per_page, count), results };
    },
  });
}

function showRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/credibility/flags/:id/',
    operationId: 'getCredibilityFlag',
    summary: 'One flag with its accounts, evidence and decision (staff)',
    tags: TAGS,
    auth: 'staff',
    params: flagIdParam,
    responses: { 200: { description: 'The flag', schema: flagSchema }, ...staffErrors, ...errorResponses({ 404: 'credibility_flag_not_found' }) },
    async handler(ctx, { params }) {
      const flag = await findFlag(deps.db, params.id);
      if (!flag) throw flagNotFound(params.id);
      ctx.body = await flagView(deps.db, flag);
    },
  });
}

function decideFlagRoute(deps: AppDeps, action: 'confirm' | 'clear'): RouteDef {
  const d: Decision = action === 'confirm' ? 'confirmed' : 'cleared';
  return defineRoute({
    method: 'post',
    path: `/credibility/flags/:id/${action}`,
    operationId: action === 'confirm' ? 'confirmCredibilityFlag' : 'clearCredibilityFlag',
    summary:
      action === 'confirm'
        ? "Confirm a flag: its accounts' votes, yaps and submissions of the month count 0 (staff)"
        : "Clear a flag: its accounts' activity of the month counts at full weight (staff)",
    description:
      'Replaces an earlier decision on the same flag. Kept by every recompute of the month (the month is recomputed now, in the background; the distribution recomputes before freezing when a decision is newer than the last run) and listed in the public moderation log (credibility_confirm / credibility_clear: kind, month and number of accounts; the note and account ids for editors and staff only).',
    tags: TAGS,
    auth: 'staff',
    params: flagIdParam,
    body: z.strictObject({ note }).optional(),
    responses: { 200: { description: 'The flag with the decision', schema: flagSchema }, ...staffErrors, ...errorResponses({ 404: 'credibility_flag_not_found' }) },
    async handler(ctx, { params, body }) {
      const { flag } = await decideFlag(deps, params.id, { decision: d, note: body?.note || null, staffId: ctx.state.user!.id });
      ctx.body = await flagView(deps.db, flag);
    },
  });
}

const accountSchema = z
  .object({
    account,
    month: z.string(),
    flags: z.array(flagSchema),
    decision,
    discounted: z
      .array(z.object({ kind: z.string(), reason: z.string(), items: z.number().int() }))
      .meta({ description: "The account's votes, yaps and submissions below full weight, counted per kind and reason" }),
  })
  .meta({ id: 'CredibilityAccount' });

function accountRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/credibility/accounts/:id/',
    operationId: 'getCredibilityAccount',
    summary: "One account's month: its flags, the decision on the account and its discounted activity per reason (staff)",
    tags: TAGS,
    auth: 'staff',
    params: accountIdParam,
    query: z.strictObject({ month: month.optional() }),
    responses: { 200: { description: 'The account', schema: accountSchema }, ...staffErrors, ...errorResponses({ 404: 'credibility_account_not_found' }) },
    async handler(ctx, { params, query }) {
      const user = (await membersOf(deps.db, [params.id])).get(params.id);
      if (!user) throw accountNotFound(params.id);
      ctx.body = await accountView(deps.db, query.month ?? currentMonth(), params.id, user);
    },
  });
}

function decideAccountRoute(deps: AppDeps, action: 'confirm' | 'clear'): RouteDef {
  return defineRoute({
    method: 'post',
    path: `/credibility/accounts/:id/${action}`,
    operationId: action === 'confirm' ? 'confirmCredibilityAccount' : 'clearCredibilityAccount',
    summary:
      action === 'confirm'
        ? 'Confirm one account for a month: its votes, yaps and submissions count 0 (staff)'
        : 'Clear one account for a month: its activity counts at full weight unless a flag it is in is confirmed (staff)',
    description: 'Kept by every recompute and listed in the public moderation log like a decision on a flag (kind `account`).',
    tags: TAGS,
    auth: 'staff',
    params: accountIdParam,
    body: z.strictObject({ month: month.optional(), note }).optional(),
    responses: { 200: { description: 'The account', schema: accountSchema }, ...staffErrors, ...errorResponses({ 404: 'credibility_account_not_found' }) },
    async handler(ctx, { params, body }) {
      const m = body?.month ?? currentMonth();
      await decideAccount(deps, params.id, m, { decision: action === 'confirm' ? 'confirmed' : 'cleared', note: body?.note || null, staffId: ctx.state.user!.id });
      const user = (await membersOf(deps.db, [params.id])).get(params.id)!;
      ctx.body = await accountView(deps.db, m, params.id, user);
    },
  });
}

export function credibilityStaffRoutes(deps: AppDeps): RouteDef[] {
  return [
    listRoute(deps),
    showRoute(deps),
    decideFlagRoute(deps, 'confirm'),
    decideFlagRoute(deps, 'clear'),
    accountRoute(deps),
    decideAccountRoute(deps, 'confirm'),
    decideAccountRoute(deps, 'clear'),
  ];
}
