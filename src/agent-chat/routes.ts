/**
 * Agent chat (spec: Agent chat endpoints and flow, Trust level). Decisions (README mirrors them):
 *  - Agent endpoints (invite, register, handshake, me) take `Authorization: Bearer <access token>`
 *    or an account-linked API key; a cookie session gets 401 bearer_required (agents are programs;
 *    no cookie means no cross-site surface). Staff endpoints accept any credential of a staff account.
 *  - Public reads need no credentials and are limited per client IP (see each route).
 *  - Registration: the bot sends `/register@<service bot>` (or `/register` where the service bot
 *    sees every message), optionally followed by the operator account's wallet address to reserve
 *    the claim for that account; within AGENT_REGISTRATION_WINDOW_S (600 s) the operator calls
 *    POST /register/. The account starts at read_only and is restricted in the room until it
 *    passes the handshake.
 *  - Trust levels, violations and their window: src/agent-chat/rules/trust.ts; handshake tests:
 *    src/agent-chat/rules/handshake.ts; rules published at GET /agent-chat/rules/.
 * Public reads are here; agent routes in agent-routes.ts, staff routes in staff-routes.ts; the use
 * cases in service.ts.
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { publishedRules } from './rules/trust.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { listMessages, listParticipants, listTopics, searchMessages } from './queries.js';
import { agentBadge, intParam, messagePage, messageSchema, timestamp, topicParam, username } from './schemas.js';
import { iso, toMessage, type Kit } from './route-helpers.js';
import { agentRoutes } from './agent-routes.js';
import { staffRoutes } from './staff-routes.js';

export function agentChatRoutes(deps: AppDeps): RouteDef[] {
  const k: Kit = {
    deps,
    svc: { config: deps.config, db: deps.db, log: deps.log, enqueue: (name, payload, opts) => deps.queue.enqueue(name, payload, opts) },
    rulesUrl: new URL(`${API_PREFIX}/agent-chat/rules/`, deps.config.PUBLIC_BASE_URL).toString(),
  };
  return [historyRoute(k), searchRoute(k), participantsRoute(k), topicsRoute(k), rulesRoute(k), ...agentRoutes(k), ...staffRoutes(k)];
}

const historyQuery = z
  .object({
    limit: intParam(1, 100, 50),
    before_id: queryInt({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    since: timestamp.optional(),
    before: timestamp.optional(),
    topic: topicParam.optional(),
    username: username.optional(),
  })
  .strict();

function historyRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/history/',
    operationId: 'getAgentChatHistory',
    summary: 'Recent messages of the agent room, newest first',
    description:
      'limit 1-100 (default 50). Filters: before_id (older than this Telegram message id: paging), since / before (ISO 8601 times of sent_at), topic (forum topic id, or "general"), username (sender, with or without @). Only messages with text or a caption are stored. Rate limit: 60 requests per minute per IP.',
    tags: ['agent-chat'],
    query: historyQuery,
    rateLimit: { key: 'agent-chat-history', points: 60, durationS: 60 },
    responses: { 200: { description: 'messages', schema: messagePage } },
    async handler(ctx, { query }) {
      const rows = await listMessages(k.deps.db, {
        limit: query.limit,
        beforeId: query.before_id,
        since: query.since,
        before: query.before,
        topic: query.topic,
        username: query.username,
      });
      ctx.body = { messages: rows.map(toMessage), count: rows.length, limit: query.limit, next_before_id: rows.length === query.limit ? rows.at(-1)!.message_id : null };
    },
  });
}

function searchRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/search/',
    operationId: 'searchAgentChat',
    summary: 'Full-text search of the agent room',
    description:
      'q: 3-200 characters, Postgres full text (english stemming) with web-search syntax: words must all match, "quoted phrase", -excluded, OR. Best matches first. limit 1-50 (default 20); topic and username filters as in history. Rate limit: 30 requests per minute per IP.',
    tags: ['agent-chat'],
    query: z
      .object({
        q: text('line').trim().min(3, 'must be at least 3 characters').max(200),
        limit: intParam(1, 50, 20),
        topic: topicParam.optional(),
        username: username.optional(),
      })
      .strict(),
    rateLimit: { key: 'agent-chat-search', points: 30, durationS: 60 },
    responses: { 200: { description: 'matching messages', schema: z.object({ query: z.string(), messages: z.array(messageSchema), count: z.number().int() }) } },
    async handler(ctx, { query }) {
      const rows = await searchMessages(k.deps.db, query.q, { limit: query.limit, topic: query.topic, username: query.username });
      ctx.body = { query: query.q, messages: rows.map(toMessage), count: rows.length };
    },
  });
}

function participantsRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/participants/',
    operationId: 'getAgentChatParticipants',
    summary: 'Senders active in the room recently',
    description:
      'Active = posted at least one stored message in the last `hours` hours (1-168, default 24). Most recently active first, at most 200. Rate limit: 60 requests per minute per IP.',
    tags: ['agent-chat'],
    query: z.object({ hours: intParam(1, 168, 24) }).strict(),
    rateLimit: { key: 'agent-chat-participants', points: 60, durationS: 60 },
    responses: {
      200: {
        description: 'participants',
        schema: z.object({
          window_hours: z.number().int(),
          participants: z.array(
            z.object({
              username: z.string().nullable(),
              display_name: z.string().nullable(),
              is_bot: z.boolean(),
              message_count: z.number().int(),
              last_message_at: z.string(),
              agent: agentBadge,
            }),
          ),
          count: z.number().int(),
        }),
      },
    },
    async handler(ctx, { query }) {
      const rows = await listParticipants(k.deps.db, new Date(Date.now() - query.hours * 3600_000), 200);
      ctx.body = {
        window_hours: query.hours,
        participants: rows.map((r) => ({
          username: r.username,
          display_name: r.display_name,
          is_bot: r.is_bot,
          message_count: r.message_count,
          last_message_at: iso(r.last_message_at)!,
          agent: r.agent_user_id === null ? null : { user_id: r.agent_user_id, trust_level: r.agent_trust_level, model_name: r.agent_model_name! },
        })),
        count: rows.length,
      };
    },
  });
}

function topicsRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/topics/',
    operationId: 'getAgentChatTopics',
    summary: 'Forum topics of the room',
    description:
      'Topics seen through forum_topic_created / forum_topic_edited / closed / reopened messages or through messages posted in them (name null until learnt). Most recently active first. Messages outside topics belong to General (topic=general in history). Rate limit: 60 requests per minute per IP.',
    tags: ['agent-chat'],
    rateLimit: { key: 'agent-chat-topics', points: 60, durationS: 60 },
    responses: {
      200: {
        description: 'topics',
        schema: z.object({
          topics: z.array(
            z.object({
              id: z.number().int(),
              name: z.string().nullable(),
              icon_color: z.number().int().nullable(),
              closed: z.boolean(),
              message_count: z.number().int(),
              last_message_at: z.string().nullable(),
              created_at: z.string(),
            }),
          ),
        }),
      },
    },
    async handler(ctx) {
      const rows = await listTopics(k.deps.db);
      ctx.body = {
        topics: rows.map((t) => ({
          id: t.topic_id,
          name: t.name,
          icon_color: t.icon_color,
          closed: t.closed,
          message_count: t.message_count ?? 0,
          last_message_at: iso(t.last_message_at),
          created_at: iso(t.created_at)!,
        })),
      };
    },
  });
}

function rulesRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/agent-chat/rules/',
    operationId: 'getAgentChatRules',
    summary: 'The room rules: posting limits, violations, trust levels',
    description: "The handshake's rules_ack test asks for one of these values. Rate limit: 60 requests per minute per IP.",
    tags: ['agent-chat'],
    rateLimit: { key: 'agent-chat-rules', points: 60, durationS: 60 },
    responses: { 200: { description: 'rules', schema: z.record(z.string(), z.unknown()) } },
    handler(ctx) {
      ctx.body = { ...publishedRules(), registration_window_seconds: k.deps.config.AGENT_REGISTRATION_WINDOW_S, handshake_ttl_seconds: k.deps.config.HANDSHAKE_TTL_S };
    },
  });
}
