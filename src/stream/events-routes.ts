/**
 * GET /api/v1/events/: the durable pull side of the lifecycle events (beyond the spec, which only
 * has the WebSocket). It reads the event log in PostgreSQL (src/platform/events/log.ts) and never
 * Redis, so the events stay readable while the stream is down.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { eventTypes, isEventType, isStaffOnly, publicEventTypes, rolesSeeStaffEvents, staffEventTypes, type EventType, type Visibility } from '../platform/events/events.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { listEvents, oldestEventId } from '../platform/events/log.js';
import { userRoles } from '../identity/index.js';
import { requireKnownAssets } from '../assets/index.js';
import { ASSET_FILTER_PATTERN } from '../platform/events/filter.js';

const MAX_EVENTS_LIMIT = 500;
const DEFAULT_EVENTS_LIMIT = 100;

const typesParam = z
  .string()
  .superRefine((v, c) => {
    const unknown = v
      .split(',')
      .map((t) => t.trim())
      .filter((t) => !isEventType(t));
    if (unknown.length) c.addIssue({ code: 'custom', message: `unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; known: ${eventTypes.join(', ')}` });
  })
  .transform((v) => [...new Set(v.split(',').map((t) => t.trim()))] as EventType[]);

/** `asset`: comma-separated canonical asset ids, at most 50. */
const assetsParam = z
  .string()
  .transform((v) => [...new Set(v.split(',').map((t) => t.trim()))])
  .pipe(z.array(z.string().max(100).regex(ASSET_FILTER_PATTERN, 'must be asset ids (lower-case slugs), comma-separated')).min(1).max(50));

const eventSchema = z
  .object({
    type: z.enum(eventTypes),
    id: z.number().int().meta({ description: 'Article id (for news.tsunami: the wire item id)' }),
    slug: z.string(),
    status: z.string(),
    headline: z.string(),
    date_posted: z.string().meta({ description: 'ISO 8601 UTC: publication time once published, else submission (or ingestion) time' }),
    origin: z.string(),
    previous_status: z.string().optional().meta({ description: 'On status-changing events' }),
    sponsored: z.object({ tier: z.string(), ad_status: z.string(), is_paid: z.boolean() }).nullable(),
    assets: z
      .array(z.object({ id: z.string(), symbol: z.string(), name: z.string(), salience: z.number(), primary: z.boolean() }))
      .optional()
      .meta({ description: "Article events: the article's asset tags when the event was recorded, by salience (absent when it had none)" }),
    story_id: z.number().int().nullable().optional().meta({
      description:
        "The item's story (GET /api/v1/stories/{id}/) as of the event, null while it has none (a new submission or wire item is assigned just after its event); absent on events recorded before the field existed",
    }),
    event_id: z
      .number()
      .int()
      .meta({ description: 'Position in the event log: strictly increasing, with possible gaps; the same event carries the same id wherever it is delivered' }),
  })
  .meta({ id: 'LifecycleEvent', description: 'The event object of the WebSocket frames (spec: Events), with event_id.' });

const eventPageSchema = z
  .object({
    results: z.array(eventSchema).meta({ description: 'Ascending event_id' }),
    next_after: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'event_id of the last result: pass it as `after` next time; null when results is empty (poll again with the same after)' }),
    has_more: z.boolean().meta({ description: 'More matching events follow at once: ask again without waiting' }),
  })
  .meta({ id: 'EventPage' });

/**
 * Staff-only events go to the sessions the stream gives them to (rolesSeeStaffEvents: editors and
 * staff, by access-token cookie or Bearer JWT), never to an API key. The role the token claims is
 * confirmed in the database (a revoked role stops at once).
 */
async function seesStaffEvents(deps: AppDeps, ctx: Context): Promise<boolean> {
  const user = ctx.state.user;
  if (!user || user.via === 'api_key' || !rolesSeeStaffEvents(user.roles)) return false;
  return rolesSeeStaffEvents((await userRoles(deps.db, user.id)) ?? []);
}

export function eventRoutes(deps: AppDeps): RouteDef[] {
  const retentionDays = deps.config.EVENT_LOG_RETENTION_DAYS;
  return [
    defineRoute({
      method: 'get',
      path: '/events/',
      operationId: 'listEvents',
      quotaFailOpen: true,
      summary: 'Lifecycle events after a cursor, from the durable event log (poll)',
      description: [
        'The lifecycle events of the WebSocket stream (/ws/news/), read from the durable event log in PostgreSQL, not from Redis (it works while Redis is down: the request counts against the daily quota like on every metered route, but while Redis is unreachable it goes through uncounted instead of 503). Each result is the event object exactly as WebSocket clients receive it, including `event_id`.',
        '**Event ids** are strictly increasing, with possible gaps (ids are never reused; events of other types or visibilities, internal events and rolled-back writes leave gaps). An event never appears later below an id you have already read, so `event_id > after` misses nothing: the answer stops at the event horizon, below which every id is final, so an event appears once every event-writing transaction that drew an id before it has ended (typically within a millisecond of its commit).',
        '**Polling:** start with `after=0` (everything retained) or with the last event_id you processed. Pass `next_after` as `after` on the next request. `has_more: true` means ask again at once; `next_after: null` (empty results) means nothing new yet: poll again later with the same `after`.',
        '**Delivery on the WebSocket is at-least-once:** after a reconnect or a relay retry an event may arrive twice, with the same `event_id`; drop duplicates by `event_id`. This endpoint and the stream carry the same ids, so a client can mix them (e.g. catch up here, then go live).',
        `**Retention:** events are kept ${retentionDays} days (EVENT_LOG_RETENTION_DAYS, default 30), then deleted. If events after your cursor were deleted (0 < after < pruned_through) the answer is 410 \`events_expired\` with details {oldest_event_id, pruned_through}: re-read the feed (GET /api/v1/news/) for the current state, then resume from the oldest retained event with after=0 (after=0 is never expired; any after >= pruned_through is accepted too).`,
        `**Visibility:** anonymous callers and API keys get the public types (${publicEventTypes.join(', ')}); signed-in editor and staff sessions (access_token cookie or Bearer JWT of an account with the editor or staff role, confirmed in the database; the same rule as the WebSocket and SSE streams) also get the staff-only types (${staffEventTypes.join(', ')}). An API key never gets staff-only events, even one linked to a staff account. Staff-only types named in \`types\` by any other caller are silently left out (not an error). Internal events never appear.`,
        `\`after\`: integer >= 0, default 0. \`limit\`: 1 to ${MAX_EVENTS_LIMIT}, default ${DEFAULT_EVENTS_LIMIT}. \`types\`: comma-separated event types (default: all visible to the caller). Unknown types, out-of-range or non-integer values, repeated and unknown parameters are 400 validation_failed naming the parameter.`,
      ].join('\n\n'),
      tags: ['events'],
      query: z.strictObject({
        after: queryInt({ min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 }).meta({
          description: 'Return events with event_id greater than this (default 0: from the oldest retained)',
        }),
        limit: queryInt({ min: 1, max: MAX_EVENTS_LIMIT, default: DEFAULT_EVENTS_LIMIT }).meta({
          description: `Most events returned, 1-${MAX_EVENTS_LIMIT} (default ${DEFAULT_EVENTS_LIMIT})`,
        }),
        types: typesParam.optional().meta({ description: `Comma-separated event types: ${eventTypes.join(', ')} (default all the caller may see)` }),
        asset: assetsParam.optional().meta({
          description:
            'Comma-separated asset ids (any of): only events of articles tagged with one of them when the event was recorded (their `assets`). An id the registry does not know is 400 unknown_asset with details.value.',
        }),
      }),
      responses: {
        200: { description: 'Events after the cursor, ascending event_id', schema: eventPageSchema },
        410: { description: 'events_expired: events after the cursor were deleted by retention; details {oldest_event_id, pruned_through}', schema: errorSchema },
      },
      async handler(ctx, { query }) {
        const after = query.after;
        const limit = query.limit;
        const staff = await seesStaffEvents(deps, ctx);
        const visibilities: Visibility[] = staff ? ['public', 'staff'] : ['public'];
        const types = (query.types ?? eventTypes).filter((t) => staff || !isStaffOnly(t));
        await requireKnownAssets(deps.db, query.asset);
        const { rows, prunedThrough } = await listEvents(deps.db, { after, limit: limit + 1, types, visibilities, assets: query.asset });
        // pruned_through is read with the page (one snapshot): retention raises it in the transaction
        // that deletes, so a page that lost events to a prune always sees the raised value.
        if (after > 0 && after < prunedThrough) {
          const oldest = await oldestEventId(deps.db);
          throw new DomainError(
            'events_expired',
            `events after ${after} were deleted by retention (kept ${retentionDays} days); re-read the feed (GET /api/v1/news/), then resume from the oldest retained event${oldest === null ? '' : ` (${oldest})`} with after=0`,
            { oldest_event_id: oldest, pruned_through: prunedThrough },
          );
        }
        const page = rows.slice(0, limit);
        // The stored payload is the event's JSON text as clients receive it: no parse and re-stringify.
        ctx.type = 'application/json';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = `{"results":[${page.map((r) => r.payload).join(',')}],"next_after":${page.length ? page[page.length - 1].event_id : 'null'},"has_more":${rows.length > limit}}`;
      },
    }),
  ];
}
