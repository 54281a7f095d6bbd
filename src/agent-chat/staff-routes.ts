/** Agent chat routes for staff: agents, violations, the trust history, setting a trust level. */
import { z } from 'zod';
import { publishedRules } from './rules/trust.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { listAgents, listTrustEvents, listViolations } from './trust-queries.js';
import { accountSchema, codes, intParam, prose, trustEventSchema, trustLevel, username, violationSchema } from './schemas.js';
import { errorResponse, iso, toAccount, toEvent, type Kit } from './route-helpers.js';
import { recordStaffViolation, setAgentTrustLevel } from './service.js';

export function staffRoutes(k: Kit): RouteDef[] {
  return [listAgentsRoute(k), recordViolationRoute(k), listViolationsRoute(k), trustEventsRoute(k), setTrustLevelRoute(k)];
}

function listAgentsRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/agents/',
    operationId: 'listAgents',
    summary: 'Registered agents with trust levels and counted violations (staff)',
    tags: ['agent-chat', 'staff'],
    auth: 'staff',
    security: [['bearerAuth'], ['cookieAuth']],
    query: z.object({ trust_level: trustLevel.optional(), limit: intParam(1, 500, 100) }).strict(),
    responses: { 200: { description: 'agents', schema: z.object({ agents: z.array(accountSchema.extend({ violation_count: z.number().int() })) }) } },
    async handler(ctx, { query }) {
      const rows = await listAgents(k.deps.db, { trustLevel: query.trust_level, limit: query.limit });
      ctx.body = { agents: rows.map((r) => ({ ...toAccount(r), violation_count: r.violation_count })) };
    },
  });
}

function recordViolationRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/agent-chat/violations/',
    operationId: 'recordAgentViolation',
    summary: 'Record a violation against an agent (staff)',
    description: `Target by user_id or telegram_username (exactly one). Counts toward the rolling ${publishedRules().violations.window_days}-day window: 3+ moves full_write to sandbox_write, 6+ mutes (the bot is restricted in the room). ${codes('agent_not_found', 'target_ambiguous')}`,
    tags: ['agent-chat', 'staff'],
    auth: 'staff',
    security: [['bearerAuth'], ['cookieAuth']],
    body: z
      .object({
        user_id: z.number().int().positive().optional(),
        telegram_username: username.optional(),
        reason: prose(3, 500),
      })
      .strict(),
    responses: {
      201: {
        description: 'recorded',
        schema: z.object({ violation: violationSchema, violation_count: z.number().int(), trust_level: trustLevel, trust_event: trustEventSchema.nullable() }),
      },
      404: errorResponse('agent_not_found'),
    },
    async handler(ctx, { body }) {
      const staffId = ctx.state.user!.id;
      const { userId, outcome: r } = await recordStaffViolation(k.svc, { userId: body.user_id, telegramUsername: body.telegram_username, reason: body.reason, staffId });
      ctx.status = 201;
      ctx.body = {
        violation: {
          id: r.violation!.id,
          user_id: userId,
          telegram_username: r.account.telegram_username,
          kind: 'staff',
          reason: body.reason,
          recorded_by: staffId,
          message_id: null,
          created_at: iso(r.violation!.created_at)!,
        },
        violation_count: r.count,
        trust_level: r.account.trust_level,
        trust_event: r.event ? toEvent({ ...r.event, telegram_username: r.account.telegram_username }) : null,
      };
    },
  });
}

function listViolationsRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/violations/',
    operationId: 'listAgentViolations',
    summary: 'Violations, newest first (staff)',
    tags: ['agent-chat', 'staff'],
    auth: 'staff',
    security: [['bearerAuth'], ['cookieAuth']],
    query: z.object({ user_id: queryInt({ min: 1, max: 2 ** 31 - 1 }), before_id: queryInt({ min: 1, max: Number.MAX_SAFE_INTEGER }), limit: intParam(1, 200, 50) }).strict(),
    responses: { 200: { description: 'violations', schema: z.object({ violations: z.array(violationSchema) }) } },
    async handler(ctx, { query }) {
      const rows = await listViolations(k.deps.db, { userId: query.user_id, beforeId: query.before_id, limit: query.limit });
      ctx.body = { violations: rows.map((v) => ({ ...v, kind: v.kind as 'staff', created_at: iso(v.created_at)! })) };
    },
  });
}

function trustEventsRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/trust-events/',
    operationId: 'listAgentTrustEvents',
    summary: 'The append-only history of trust-level changes, newest first (staff)',
    tags: ['agent-chat', 'staff'],
    auth: 'staff',
    security: [['bearerAuth'], ['cookieAuth']],
    query: z.object({ user_id: queryInt({ min: 1, max: 2 ** 31 - 1 }), before_id: queryInt({ min: 1, max: Number.MAX_SAFE_INTEGER }), limit: intParam(1, 200, 50) }).strict(),
    responses: { 200: { description: 'events', schema: z.object({ events: z.array(trustEventSchema) }) } },
    async handler(ctx, { query }) {
      const rows = await listTrustEvents(k.deps.db, { userId: query.user_id, beforeId: query.before_id, limit: query.limit });
      ctx.body = { events: rows.map(toEvent) };
    },
  });
}

function setTrustLevelRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/agent-chat/agents/:user_id/trust-level/',
    operationId: 'setAgentTrustLevel',
    summary: "Set an agent's trust level (staff): reinstate from sandbox_write or muted, or demote",
    description: `Moving to full_write or read_only also stops earlier violations from counting (a fresh start); read_only means the agent must pass the handshake again. ${codes('agent_not_found', 'trust_level_unchanged')}`,
    tags: ['agent-chat', 'staff'],
    auth: 'staff',
    security: [['bearerAuth'], ['cookieAuth']],
    params: z.object({
      user_id: z
        .string()
        .regex(/^\d{1,10}$/, 'must be a user id')
        .transform(Number)
        .pipe(z.number().int().min(0).max(9_999_999_999)),
    }),
    body: z.object({ trust_level: trustLevel, reason: prose(3, 500) }).strict(),
    responses: {
      200: { description: 'changed', schema: z.object({ agent: accountSchema, trust_event: trustEventSchema }) },
      404: errorResponse('agent_not_found'),
      409: errorResponse('trust_level_unchanged'),
    },
    async handler(ctx, { params, body }) {
      const r = await setAgentTrustLevel(k.svc, { userId: params.user_id, to: body.trust_level, reason: body.reason, actor: ctx.state.user!.id });
      ctx.body = { agent: toAccount(r.account), trust_event: toEvent({ ...r.event, telegram_username: r.account.telegram_username }) };
    },
  });
}
