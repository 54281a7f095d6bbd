/**
 * The credibility page of the console (GET /editor/credibility/, staff only): a month's flagged
 * accounts and groups with their evidence and the decision in force, server-rendered, with confirm
 * and clear buttons. The buttons call POST /api/v1/credibility/flags/{id}/confirm and /clear from
 * editor.js (the same rules and CSRF check as any client: the browser sends the page's Origin).
 */
import type { Context } from 'koa';
import { getAddress } from 'viem';
import { z } from 'zod';
import { listFlags, type StaffFlag } from '../credibility/index.js';
import { getUserById } from '../identity/index.js';
import { esc } from '../platform/http/html.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import type { ConsoleContext } from './console-context.js';
import { signInPage } from './render.js';

const PER_PAGE = 50;
const DECISIONS = ['open', 'confirmed', 'cleared'] as const;

/** The signed-in staff member's display name, or null after rendering the sign-in or "Staff only" page. */
async function staffMember(c: ConsoleContext, ctx: Context): Promise<string | null> {
  const u = ctx.state.user;
  if (!u || u.via === 'api_key') {
    c.render(ctx, 401, 'Sign in', signInPage(ctx.state.authProblem?.code === 'token_expired' ? 'Your session has expired; sign in again.' : undefined));
    return null;
  }
  const row = await getUserById(c.deps.db, u.id);
  if (!row) {
    c.render(ctx, 401, 'Sign in', signInPage('That account no longer exists.'));
    return null;
  }
  const who = row.username ?? `${getAddress(row.wallet_address).slice(0, 6)}…${getAddress(row.wallet_address).slice(-4)}`;
  if (!(row.roles as string[]).includes('staff')) {
    c.render(
      ctx,
      403,
      'Staff only',
      `<h1 id="staff-only">Staff only</h1><p>You are signed in as ${esc(who)}, which does not have the staff role. Credibility flags are only shown to staff.</p>`,
      who,
    );
    return null;
  }
  return who;
}

const accountName = (a: StaffFlag['members'][number]) => a.username ?? (a.address ? `${a.address.slice(0, 6)}…${a.address.slice(-4)}` : `#${a.id}`);

function decisionText(f: StaffFlag): string {
  if (!f.decision) return 'Open: no decision yet.';
  const by = f.decision.decided_by ? ` by ${accountName(f.decision.decided_by)}` : '';
  return `${f.decision.decision === 'confirmed' ? 'Confirmed' : 'Cleared'}${by} on ${f.decision.decided_at.slice(0, 16).replace('T', ' ')} UTC${f.decision.note ? ` (note: ${f.decision.note})` : ''}.`;
}

function flagHtml(f: StaffFlag): string {
  const members = f.members
    .map((m) => `<li><span class="member" title="account ${m.id}">${esc(accountName(m))}</span> <span class="muted">#${m.id}, ${esc(m.account_type ?? '?')}</span></li>`)
    .join('');
  const evidence = Object.entries(f.evidence)
    .map(([k, v]) => `<dt>${esc(k.replace(/_/g, ' '))}</dt><dd>${esc(v)}</dd>`)
    .join('');
  const state = f.decision?.decision ?? 'open';
  return `<section class="flag" id="flag-${esc(f.id)}" data-flag="${esc(f.id)}" data-state="${state}">
<h2>${esc(f.kind.replace(/_/g, ' '))} · ${f.accounts} account${f.accounts === 1 ? '' : 's'}</h2>
<p class="flag-id"><code>${esc(f.id)}</code></p>
<ul class="members">${members}</ul>
<dl class="evidence">${evidence}</dl>
<p class="flag-decision" role="status">${esc(decisionText(f))}</p>
<p class="flag-actions"><label for="note-${esc(f.id)}">Note</label> <input id="note-${esc(f.id)}" class="flag-note" maxlength="1000" autocomplete="off">
<button type="button" data-flag-act="confirm"${state === 'confirmed' ? ' disabled' : ''}>Confirm</button>
<button type="button" data-flag-act="clear"${state === 'cleared' ? ' disabled' : ''}>Clear</button></p>
</section>`;
}

function pageHtml(month: string, decision: string | undefined, page: number, list: { count: number; results: StaffFlag[] }): string {
  const link = (p: number) => `/editor/credibility/?month=${month}${decision ? `&amp;decision=${decision}` : ''}${p > 1 ? `&amp;page=${p}` : ''}`;
  const last = Math.max(1, Math.ceil(list.count / PER_PAGE));
  const nav = [page > 1 ? `<a rel="prev" href="${link(page - 1)}">Previous</a>` : '', page < last ? `<a rel="next" href="${link(page + 1)}">Next</a>` : '']
    .filter(Boolean)
    .join(' ');
  const options = DECISIONS.map((d) => `<option${d === decision ? ' selected' : ''}>${d}</option>`).join('');
  return `<h1>Credibility flags</h1>
<p>Accounts and groups the detector flagged in ${esc(month)}, with its evidence. Confirm: their votes, yaps and submissions of the month count nothing. Clear: they count in full. Decisions are kept by every recompute, appear in the public moderation log (kind, month, number of accounts) and apply to the month's distribution if made before it is frozen.</p>
<form class="filters" method="get" action="/editor/credibility/">
<label for="cf-month">Month</label><input id="cf-month" name="month" value="${esc(month)}" pattern="\\d{4}-\\d{2}" size="7">
<label for="cf-decision">Decision</label><select id="cf-decision" name="decision"><option value="">Any</option>${options}</select>
<p><button type="submit">Show</button></p>
</form>
<p id="flag-count">${list.count} flag${list.count === 1 ? '' : 's'}${last > 1 ? `, page ${page} of ${last}` : ''}.</p>
<div id="flags">${list.results.map(flagHtml).join('\n')}</div>
${nav ? `<nav class="pages" aria-label="Pages">${nav}</nav>` : ''}`;
}

export function credibilityPageRoute(c: ConsoleContext): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/editor/credibility/',
    mount: 'root',
    operationId: 'editorCredibilityPage',
    summary: "A month's credibility flags with their evidence, to confirm or clear (HTML, staff)",
    tags: ['editor console'],
    query: z.strictObject({
      month: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM')
        .optional(),
      decision: z.enum(DECISIONS).or(z.literal('')).optional(),
      page: queryInt({ min: 1, max: 100_000, default: 1 }),
    }),
    responses: {
      200: { description: 'HTML page', schema: z.string(), contentType: 'text/html' },
      401: { description: 'Sign-in page', schema: errorSchema, alternatives: { 'text/html': z.string() } },
      403: { description: 'Staff only page', schema: errorSchema, alternatives: { 'text/html': z.string() } },
      400: { description: 'validation_failed', schema: errorSchema },
    },
    async handler(ctx, { query }) {
      const who = await staffMember(c, ctx);
      if (who === null) return;
      const month = query.month ?? new Date().toISOString().slice(0, 7);
      const decision = query.decision || undefined;
      const list = await listFlags(c.deps.db, month, { decision }, query.page, PER_PAGE);
      c.render(ctx, 200, 'Credibility flags', pageHtml(month, decision, query.page, list), who);
    },
  });
}
