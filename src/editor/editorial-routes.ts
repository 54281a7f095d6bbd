/**
 * Editorial workflow routes (editor role): approve, kill, schedule, retract, edit, and the edit
 * history. Each validates, calls the use case of ./service.ts and answers with the full record and
 * the changes recorded in article_edits ({field: {from, to}}).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import type { EditableFields } from '../articles/index.js';
import { TRANSITIONS } from '../articles/index.js';
import { TOKEN_SYMBOL_PATTERN } from '../platform/events/filter.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, validationError, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { getArticleRecord, listEdits } from '../articles/index.js';
import { DECISION_REASONS, DEFAULT_DECISION_REASON, MAX_DECISION_NOTE } from '../articles/index.js';
import { articleNotFound } from '../articles/index.js';
import { toArticleRecord } from '../articles/index.js';
import { articleTags, editHistorySchema, editorialResult, headlineInput, idParam, tokenAddress } from '../articles/index.js';
import { decisionNote } from './schemas.js';
import { approveArticle, editArticle, killArticle, retractArticle, scheduleArticle, type DecisionInput } from './service.js';

const editorErrors = errorResponses({ 401: 'not signed in', 403: 'editor_required', 404: 'article_not_found', 409: 'illegal_transition' });

const REASON_DOC = `Optional JSON body {reason, note, duplicate_of}: reason is one of ${DECISION_REASONS.join(', ')} (default when absent, including a call with no body: '${DEFAULT_DECISION_REASON}'); note (at most ${MAX_DECISION_NOTE} characters) is shown to editors and staff only; duplicate_of (an existing article id, not this one) required with reason duplicate and only with it. The submitter sees the reason in GET /wallet/me/submissions/ and the article record's decision.`;

const decisionBody = z
  .strictObject({
    reason: z.enum(DECISION_REASONS).optional(),
    note: decisionNote,
    duplicate_of: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
  })
  .superRefine((b, ctx) => {
    if (b.duplicate_of != null && b.reason !== 'duplicate') ctx.addIssue({ code: 'custom', path: ['duplicate_of'], message: "only with reason 'duplicate'" });
    if (b.duplicate_of == null && b.reason === 'duplicate')
      ctx.addIssue({ code: 'custom', path: ['duplicate_of'], params: { code: 'required' }, message: "is required with reason 'duplicate'" });
  });

/** Scheduling further ahead than this is refused. */
const MAX_SCHEDULE_AHEAD_DAYS = 365;

const dedupe = <T>(a: T[]) => [...new Set(a)];

const editBody = z
  .strictObject({
    headline: headlineInput.optional(),
    tags: articleTags.optional(),
    token_addresses: z.array(tokenAddress).max(20, 'at most 20 addresses').transform(dedupe).optional(),
    token_symbols: z.array(z.string().trim().regex(TOKEN_SYMBOL_PATTERN, 'must be 1 to 20 of A-Z a-z 0-9 $ . _ -')).max(20, 'at most 20 symbols').transform(dedupe).optional(),
    issuer: z
      .strictObject({
        name: text('display').trim().min(1).max(200).nullable(),
        website: z
          .string()
          .trim()
          .max(500)
          .refine((v) => /^https?:\/\/[^\s]+$/i.test(v), 'must be an http:// or https:// URL')
          .nullable(),
      })
      .nullable()
      .optional(),
    content_type: z
      .string()
      .trim()
      .regex(/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/, 'must be a lower-case slug such as governance_proposal')
      .max(64)
      .nullable()
      .optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field to change' });

type EditBody = z.output<typeof editBody>;

/** The editable fields of an edit body (issuer splits into issuer_name and issuer_website). */
function editPatch(body: EditBody): Partial<EditableFields> {
  const patch: Partial<EditableFields> = {};
  if (body.headline !== undefined) patch.headline = body.headline;
  if (body.tags !== undefined) patch.tags = body.tags;
  if (body.token_addresses !== undefined) patch.token_addresses = body.token_addresses;
  if (body.token_symbols !== undefined) patch.token_symbols = body.token_symbols;
  if (body.issuer !== undefined) {
    patch.issuer_name = body.issuer?.name ?? null;
    patch.issuer_website = body.issuer?.website ?? null;
  }
  if (body.content_type !== undefined) patch.content_type = body.content_type;
  return patch;
}

async function respondWithRecord(deps: AppDeps, ctx: Context, id: number, changes: Record<string, unknown>) {
  const row = await getArticleRecord(deps.db, id);
  if (!row) throw articleNotFound(id);
  ctx.body = { article: toArticleRecord(row, { signedIn: true, staff: true }), changes };
}

const allowedFrom = (action: keyof typeof TRANSITIONS) =>
  `Allowed from: ${TRANSITIONS[action].from.join(', ')}; otherwise 409 illegal_transition with details.current_status. Response {article: <full record>, changes}.`;

function approveRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/:id/approve',
    operationId: 'approveArticle',
    summary: 'Approve (publish) an article',
    description: `Publishes now (published_at = now), computes its hot score and publishes news.approved with previous_status. Approving a scheduled article publishes it at once; approving a killed one reverses the kill (and clears its reason). ${allowedFrom('approve')}`,
    tags: ['editorial'],
    auth: 'editor',
    params: idParam,
    responses: { 200: { description: 'done', schema: editorialResult }, ...editorErrors },
    async handler(ctx, { params }) {
      const changes = await approveArticle(deps.db, params.id, ctx.state.user!.id);
      await respondWithRecord(deps, ctx, params.id, changes);
    },
  });
}

/** Kill and retract: a decision body {reason, note, duplicate_of}. */
function decisionRoute(deps: AppDeps, action: 'kill' | 'retract', summary: string, description: string): RouteDef {
  const decide = action === 'kill' ? killArticle : retractArticle;
  return defineRoute({
    method: 'post',
    path: `/news/:id/${action}`,
    operationId: `${action}Article`,
    summary,
    description: `${description} ${REASON_DOC} ${allowedFrom(action)}`,
    tags: ['editorial'],
    auth: 'editor',
    params: idParam,
    body: decisionBody,
    responses: {
      200: { description: 'done', schema: editorialResult },
      ...errorResponses({
        400: 'validation_failed',
        401: 'not signed in',
        403: 'editor_required',
        404: 'article_not_found or duplicate_of_not_found',
        409: 'illegal_transition',
      }),
    },
    async handler(ctx, { params, body }) {
      if (body.duplicate_of === params.id) throw validationError([{ path: 'body.duplicate_of', code: 'custom', message: 'must be another article than this one' }]);
      const decision: DecisionInput = { reason: body.reason, note: body.note ?? null, duplicateOf: body.duplicate_of ?? null };
      const changes = await decide(deps.db, params.id, ctx.state.user!.id, decision);
      await respondWithRecord(deps, ctx, params.id, changes);
    },
  });
}

function scheduleRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/:id/schedule',
    operationId: 'scheduleArticle',
    summary: 'Schedule an article for publication at a future time',
    description: `\`publish_at\`: ISO 8601 timestamp with offset, in the future and at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead. A delayed job publishes it then (news.approved with previous_status scheduled). Re-scheduling a scheduled article moves the time. Allowed from: ${TRANSITIONS.schedule.from.join(', ')}. Publishes the staff-only news.scheduled.`,
    tags: ['editorial'],
    auth: 'editor',
    params: idParam,
    body: z.strictObject({
      publish_at: z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2030-01-01T09:00:00Z' })
        .transform((v) => new Date(v))
        .refine((d) => d.getTime() > Date.now(), 'must be in the future')
        .refine((d) => d.getTime() <= Date.now() + MAX_SCHEDULE_AHEAD_DAYS * 86_400_000, `must be at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead`),
    }),
    responses: { 200: { description: 'scheduled', schema: editorialResult }, ...editorErrors },
    async handler(ctx, { params, body }) {
      const changes = await scheduleArticle(deps.db, params.id, ctx.state.user!.id, body.publish_at);
      await respondWithRecord(deps, ctx, params.id, changes);
    },
  });
}

function editRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'patch',
    path: '/news/:id/',
    operationId: 'editArticle',
    summary: "Edit an article's headline, tags, tokens, issuer or content type",
    description:
      'Any subset of the fields; null clears issuer or content_type. Token addresses are stored lower-case; lists are de-duplicated. Only changed fields are written and recorded in the edit history (GET /news/{id}/edits); an edit that changes nothing records nothing and returns changes {}. A headline edit also moves the slug while the article has never been published. Allowed in every status.',
    tags: ['editorial'],
    auth: 'editor',
    params: idParam,
    body: editBody,
    responses: { 200: { description: 'edited', schema: editorialResult }, ...errorResponses({ 401: 'not signed in', 403: 'editor_required', 404: 'article_not_found' }) },
    async handler(ctx, { params, body }) {
      const changes = await editArticle(deps.db, { id: params.id, editorId: ctx.state.user!.id, patch: editPatch(body) });
      await respondWithRecord(deps, ctx, params.id, changes);
    },
  });
}

function editHistoryRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/:id/edits',
    operationId: 'listArticleEdits',
    summary: 'Edit history of an article (transitions and field edits), oldest first',
    tags: ['editorial'],
    auth: 'editor',
    params: idParam,
    responses: { 200: { description: 'history', schema: editHistorySchema }, ...errorResponses({ 401: 'not signed in', 403: 'editor_required', 404: 'article_not_found' }) },
    async handler(ctx, { params }) {
      const rows = await listEdits(deps.db, params.id);
      if (rows.length === 0 && !(await getArticleRecord(deps.db, params.id))) throw articleNotFound(params.id);
      ctx.body = {
        results: rows.map((e) => ({ id: e.id, editor: { id: e.editor_id, username: e.editor_username }, changes: e.changes, created_at: e.created_at.toISOString() })),
      };
    },
  });
}

export function editorialRoutes(deps: AppDeps): RouteDef[] {
  return [
    approveRoute(deps),
    decisionRoute(deps, 'kill', 'Kill (reject) a submission', 'Publishes the staff-only news.killed.'),
    decisionRoute(
      deps,
      'retract',
      'Retract a published article',
      'The article leaves the feed but stays readable at GET /news/{id}/ with status retracted. Final. Publishes the staff-only news.retracted.',
    ),
    scheduleRoute(deps),
    editRoute(deps),
    editHistoryRoute(deps),
  ];
}
