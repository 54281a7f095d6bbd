/**
 * GET /api/v1/modlog/: the public moderation log. Editors appear by username, or by a
 * stable pseudonym when they have none (src/editor/modlog-queries.ts); notes only for editors and staff
 * (roles read from the database).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DECISION_REASON_LABELS, MODLOG_ACTIONS } from '../articles/index.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, validationError, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { CREDIBILITY_MODLOG_ACTIONS, editorPseudonym, modlogPage, resolveModlogEditor, STORY_MODLOG_ACTIONS, type ModlogRow } from './modlog-queries.js';
import { userRoles } from '../identity/index.js';
import { pageLinks } from '../articles/index.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date (YYYY-MM-DD, UTC) or an ISO 8601 timestamp with offset. `endOfDay`: a date means the end of that day. */
const when = (endOfDay: boolean) =>
  z
    .string()
    .trim()
    .refine(
      (v) => (DATE_ONLY.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success) && !Number.isNaN(Date.parse(v)),
      'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a time zone',
    )
    .transform((v) => (DATE_ONLY.test(v) ? new Date(Date.parse(`${v}T00:00:00Z`) + (endOfDay ? 86_400_000 : 0)) : new Date(v)))
    .optional();

const LOG_ACTIONS = [...MODLOG_ACTIONS, ...STORY_MODLOG_ACTIONS, ...CREDIBILITY_MODLOG_ACTIONS] as const;

const storyEntrySchema = z
  .object({
    id: z.number().int().meta({ description: 'story_merge: the story kept; story_split: the story split' }),
    headline: z.string().meta({ description: 'Its representative headline just after the edit' }),
    other_story_id: z.number().int().meta({ description: 'story_merge: the story merged into it (deleted); story_split: the new story' }),
    other_headline: z.string(),
    items: z.array(z.object({ kind: z.string(), id: z.number().int() })).meta({ description: 'The members moved (article or wire item ids)' }),
    forced: z.boolean().meta({ description: 'A merge of two stories an editor had split apart' }),
  })
  .nullable()
  .meta({ description: 'Story entries (story_merge, story_split): the stories and the members moved; null for article entries' });

const credibilityEntrySchema = z
  .object({
    month: z.string().meta({ description: 'The reward month the decision applies to (YYYY-MM)' }),
    kind: z.string().meta({ description: 'The kind of flag (ring, reciprocal_pair, co_voting, cohort, burst, indiscriminate), or account for a decision on one account' }),
    accounts: z.number().int().meta({ description: 'How many accounts the decision covers' }),
    members: z.array(z.number().int()).optional().meta({ description: 'The account ids: present for editors and staff only' }),
  })
  .nullable()
  .meta({
    description:
      "Credibility entries (credibility_confirm: staff confirmed the flag, its accounts' activity of the month counts 0; credibility_clear: staff cleared it, it counts in full); null for other entries. The detector's evidence and thresholds are never shown here.",
  });

const entrySchema = z.object({
  id: z.number().int().meta({ description: 'The entry id (article entries and story entries are numbered separately)' }),
  action: z.enum(LOG_ACTIONS),
  created_at: z.string().meta({ description: 'When the action was taken (ISO 8601 UTC)' }),
  article: z
    .object({
      id: z.number().int(),
      headline: z.string().meta({ description: 'The headline now' }),
      slug: z.string(),
      status: z.string().meta({ description: 'The status now' }),
    })
    .nullable()
    .meta({ description: 'The article; null for story entries (story_merge, story_split), which carry `story` instead' }),
  story: storyEntrySchema,
  credibility: credibilityEntrySchema,
  reason: z.string().nullable().meta({ description: 'kill and retract: the reason (see the kill endpoint); null otherwise' }),
  reason_label: z.string().nullable(),
  duplicate_of: z.number().int().nullable(),
  changes: z
    .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
    .meta({ description: 'edit: the fields changed, from and to; schedule: scheduled_for; transitions: status' }),
  editor: z
    .object({ name: z.string().nullable(), pseudonymous: z.boolean() })
    .meta({ description: 'The username, or when the editor has none a stable pseudonym "editor-<10 hex>" (pseudonymous: true); name null when the account is gone' }),
  note: z.string().nullable().optional().meta({ description: "The editor's note: present for editors and staff only" }),
});

export function modlogRoutes(deps: AppDeps): RouteDef[] {
  const toEntry = (r: ModlogRow, staff: boolean) => ({
    id: r.id,
    action: r.action,
    created_at: r.created_at.toISOString(),
    article: r.article_id === null ? null : { id: r.article_id, headline: r.headline!, slug: r.slug!, status: r.article_status! },
    story:
      r.story_id === null
        ? null
        : { id: r.story_id, headline: r.story_headline!, other_story_id: r.other_story_id!, other_headline: r.other_headline!, items: r.items ?? [], forced: r.forced ?? false },
    credibility:
      r.credibility === null
        ? null
        : { month: r.credibility.month, kind: r.credibility.kind, accounts: r.credibility.members.length, ...(staff ? { members: r.credibility.members } : {}) },
    reason: r.reason,
    reason_label: r.reason ? (DECISION_REASON_LABELS[r.reason as keyof typeof DECISION_REASON_LABELS] ?? r.reason) : null,
    duplicate_of: r.duplicate_of,
    changes: r.changes,
    editor:
      r.editor_id === null
        ? { name: null, pseudonymous: false }
        : r.editor_username
          ? { name: r.editor_username, pseudonymous: false }
          : { name: editorPseudonym(deps.config.JWT_SECRET, r.editor_id), pseudonymous: true },
    ...(staff ? { note: r.note } : {}),
  });

  async function isStaff(ctx: Context): Promise<boolean> {
    if (!ctx.state.user) return false;
    const roles = await userRoles(deps.db, ctx.state.user.id);
    return Boolean(roles?.includes('editor') || roles?.includes('staff'));
  }

  return [
    defineRoute({
      method: 'get',
      path: '/modlog/',
      operationId: 'listModlog',
      summary: 'The public moderation log: approvals, kills, schedules, retractions and edits of published articles, and story merges and splits, newest first',
      description:
        "Every editorial transition, and every edit made while the article was published. Filters: action; editor (a username, case-insensitive, or a pseudonym as shown here; an unknown name gives an empty list); since (inclusive) and until (exclusive; a bare date means the end of that day), each a date YYYY-MM-DD (UTC) or an ISO 8601 timestamp with offset. Editors without a username appear as a stable pseudonym derived from their account with a server key. The editor's note is included only for editors and staff. Automatic publication of a scheduled article is not an editor's action and is not listed. Editors' story merges and splits (POST /stories/{id}/merge, /split) are listed as story_merge and story_split with `article` null and a `story` object; article entries have `story` null Staff decisions on credibility flags and accounts (POST /credibility/flags/{id}/confirm, /clear; /credibility/accounts/{id}/confirm, /clear) are listed as credibility_confirm and credibility_clear with `article` and `story` null and a `credibility` object (month, kind, number of accounts; the account ids for editors and staff only); other entries have `credibility` null.",
      tags: ['editorial'],
      query: z.strictObject({
        action: z.enum(LOG_ACTIONS).optional(),
        editor: text().trim().min(1).max(64).optional(),
        since: when(false),
        until: when(true),
        page: queryInt({ min: 1, max: 100_000, default: 1 }),
        per_page: queryInt({ min: 1, max: 100, default: 50 }),
      }),
      responses: {
        200: {
          description: 'One page of the log',
          schema: z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(entrySchema) }).meta({ id: 'ModlogPage' }),
        },
        400: { description: 'validation_failed', schema: errorSchema },
      },
      async handler(ctx, { query }) {
        if (query.since && query.until && query.since >= query.until) {
          throw validationError([{ path: 'query.until', code: 'custom', message: 'must be after since' }]);
        }
        const page = query.page;
        const perPage = query.per_page;
        const editorId = query.editor === undefined ? undefined : await resolveModlogEditor(deps.db, deps.config.JWT_SECRET, query.editor);
        const [{ rows, count }, staff] = await Promise.all([
          modlogPage(deps.db, { action: query.action, editorId, since: query.since, until: query.until }, page, perPage),
          isStaff(ctx),
        ]);
        ctx.body = { count, ...pageLinks(ctx, deps.config.PUBLIC_BASE_URL, page, perPage, count), results: rows.map((r) => toEntry(r, staff)) };
      },
    }),
  ];
}
