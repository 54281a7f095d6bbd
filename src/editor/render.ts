/**
 * Server-rendered HTML of the editors' console. Every interpolated value is escaped
 * (esc); no inline scripts or styles: behaviour comes from /editor/assets/editor.js, looks from
 * /editor/assets/editor.css, so the pages run under a CSP with script-src 'self' and style-src 'self'.
 */
import { getAddress } from 'viem';
import { DECISION_REASON_LABELS, DECISION_REASONS } from '../articles/index.js';
import { esc, HTML_HEAD_START } from '../platform/http/html.js';
import type { QueueItem } from './queue-queries.js';
import type { CachedProvenance } from './provenance-cache.js';

/** One asset tag row of an article (articleTagsForEditors in the assets feature). */
interface EditorAssetTag {
  id: string;
  symbol: string;
  name: string;
  salience: number;
  primary: boolean;
  source: 'worker' | 'editor';
  removed: boolean;
}

interface Shell {
  title: string;
  assets: { js: string; css: string };
  streamUrl: string;
  /** Shown in the header when signed in. */
  who?: string;
}

export function shell(s: Shell, body: string): string {
  const signedIn = s.who !== undefined;
  return `${HTML_HEAD_START}
<meta name="editor-stream" content="${esc(s.streamUrl)}">
<title>${esc(s.title)} · Squid editors' desk</title>
<link rel="stylesheet" href="${esc(s.assets.css)}">
<script src="${esc(s.assets.js)}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand"><a href="/editor/">Squid editors' desk</a></p>
${
  signedIn
    ? `<nav aria-label="Console"><a href="/editor/">Queue</a> <a href="/editor/modlog/">Moderation log</a> <a href="/editor/credibility/">Credibility</a></nav>
<p class="who">Signed in as <span id="who">${esc(s.who)}</span> <button type="button" id="signout">Sign out</button></p>`
    : ''
}
</header>
<main id="main" tabindex="-1">
<div id="status" class="status" role="status" aria-live="polite"></div>
${body}
</main>
</body>
</html>`;
}

export function signInPage(problem?: string): string {
  return `<h1>Sign in</h1>
<p>The editors' desk is for editors. Sign in with the wallet your editor account uses: your wallet signs a one-time message (no transaction, no fee).</p>
${problem ? `<p class="error">${esc(problem)}</p>` : ''}
<p><button type="button" id="signin" class="primary">Sign in with wallet</button></p>
<p id="signin-error" class="error" role="alert"></p>`;
}

export function editorsOnlyPage(who: string): string {
  return `<h1 id="editors-only">Editors only</h1>
<p>You are signed in as ${esc(who)}, which does not have the editor role. The review queue is only shown to editors.</p>
<p>Ask a staff member to grant the role (<code>npm run cli -- role grant &lt;address&gt; editor</code>), then sign in again.</p>`;
}

/** The submitter as shown: username, else the short checksummed address. */
function submitterName(i: Pick<QueueItem, 'submitter_username' | 'submitter_address'>): string | null {
  if (i.submitter_username) return i.submitter_username;
  if (!i.submitter_address) return null;
  const a = getAddress(i.submitter_address);
  return `${a.slice(0, 6)}…${a.slice(-4)}`;
}

function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** A time as text without the viewer's zone (the script rewrites .age times as "5 min ago"). */
function utc(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function age(from: Date, now: number): string {
  const s = Math.max(0, Math.round((now - from.getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

const VERDICT_TEXT: Record<string, string> = {
  new: 'New: no earlier coverage found',
  known: 'Known: covered before',
  duplicate: 'Duplicate: covered repeatedly in the last day',
  stale: 'Stale: only old coverage',
};

export function provenanceHtml(id: number, p: CachedProvenance | undefined): string {
  if (!p || p.state !== 'done') {
    return `<div class="prov" data-prov="pending" data-id="${id}"><p class="verdict verdict-pending">Provenance: checking…</p></div>`;
  }
  const r = p.result;
  const top = r.matches.slice(0, 3);
  const matches = top.length
    ? `<ul class="matches" aria-label="Top matches">${top
        .map(
          (m) =>
            `<li><a href="${esc(m.canonical_url)}" rel="noopener noreferrer" target="_blank">${esc(m.headline)}</a> <span class="muted">#${m.news_id}, ${esc(m.source)}, ${m.method} ${Math.round(m.similarity * 100)}%</span></li>`,
        )
        .join('')}</ul>`
    : '';
  return `<div class="prov" data-prov="done" data-id="${id}"><p class="verdict verdict-${esc(r.verdict)}">Provenance: ${esc(VERDICT_TEXT[r.verdict] ?? r.verdict)}${r.match_count ? ` (${r.match_count} match${r.match_count === 1 ? '' : 'es'})` : ''}</p>${matches}</div>`;
}

function chips(label: string, values: string[]): string {
  if (values.length === 0) return '';
  return `<span class="chips"><span class="muted">${label}:</span> ${values.map((v) => `<span class="chip">${esc(v)}</span>`).join(' ')}</span>`;
}

/** One queue row (the queue page, and the fragment the live updates insert). */
export function queueRow(i: QueueItem, p: CachedProvenance | undefined, _now?: number): string {
  const who = submitterName(i);
  const kind = i.origin === 'tsunami' ? `Wire item (${esc(i.source)})` : 'Submission';
  return `<li class="item" id="item-${i.id}" data-id="${i.id}" data-status="${esc(i.status)}"><article aria-labelledby="h-${i.id}">
<h2 id="h-${i.id}"><a class="open" href="/editor/items/${i.id}">${esc(i.headline)}</a></h2>
<p class="meta"><a href="${esc(i.url)}" rel="noopener noreferrer" target="_blank" title="${esc(i.url)}">${esc(domainOf(i.url))}</a> · ${kind}${
    who ? ` by <span class="submitter">${esc(who)}</span> <span class="acct acct-${esc(i.submitter_account_type)}">${esc(i.submitter_account_type)}</span>` : ''
  } · <time class="age" datetime="${i.created_at.toISOString()}">${utc(i.created_at)}</time></p>
<p class="tags">${chips('Tokens', i.token_symbols)} ${chips('Tags', i.tags)}</p>
${provenanceHtml(i.id, p)}
${actions(i)}
<p class="outcome" role="status"></p>
</article></li>`;
}

function actions(i: Pick<QueueItem, 'id' | 'status'>): string {
  const b = (act: string, label: string, key: string) => `<button type="button" data-act="${act}" aria-keyshortcuts="${key}">${label}</button>`;
  const list: string[] = [];
  if (['submitted', 'scheduled', 'killed'].includes(i.status)) list.push(b('approve', 'Approve', 'a'));
  if (['submitted', 'scheduled'].includes(i.status)) list.push(b('kill', 'Kill…', 'x'));
  if (['submitted', 'scheduled', 'killed'].includes(i.status)) list.push(b('schedule', 'Schedule…', 's'));
  if (i.status === 'approved') list.push(b('retract', 'Retract…', 'r'));
  return `<div class="actions" data-id="${i.id}">${list.join(' ')}</div>`;
}

const SHORTCUTS: [string, string][] = [
  ['j / k', 'Next / previous item'],
  ['o or Enter', 'Open the focused item'],
  ['a', 'Approve the focused item'],
  ['x', 'Kill the focused item (asks for a reason)'],
  ['s', 'Schedule the focused item (asks for a time)'],
  ['r', 'Retract (item page, published articles)'],
  ['e', 'Edit (item page)'],
  ['g q', 'Back to the queue'],
  ['?', 'Show or hide this list'],
  ['Esc', 'Close a dialog'],
];

function shortcutsHtml(): string {
  return `<details class="shortcuts" id="shortcuts"><summary>Keyboard shortcuts</summary><dl>${SHORTCUTS.map(([k, d]) => `<dt><kbd>${esc(k)}</kbd></dt><dd>${esc(d)}</dd>`).join('')}</dl><p class="muted">Shortcuts are off while typing in a field.</p></details>`;
}

/** The dialogs shared by every item on a page (kill reason, schedule time, retract reason). */
function dialogs(): string {
  // No reason is preselected: the empty first option keeps the required select unanswered until the editor picks one.
  const reasons = `<option value="">Choose a reason…</option>${DECISION_REASONS.map((r) => `<option value="${r}">${esc(DECISION_REASON_LABELS[r])}</option>`).join('')}`;
  return `<dialog id="kill-dialog" aria-labelledby="kill-title"><form method="dialog" id="kill-form">
<h2 id="kill-title">Kill <span class="target"></span></h2>
<label for="kill-reason">Reason</label><select id="kill-reason" name="reason" required>${reasons}</select>
<label for="kill-duplicate">Duplicate of (article id, for “Duplicate”)</label><input id="kill-duplicate" name="duplicate_of" inputmode="numeric" pattern="[0-9]*" autocomplete="off">
<label for="kill-note">Note for editors (optional, not shown to the submitter)</label><textarea id="kill-note" name="note" maxlength="1000" rows="3"></textarea>
<p class="error dialog-error" role="alert"></p>
<p class="buttons"><button type="submit" class="danger" value="ok">Kill</button> <button type="button" class="cancel">Cancel</button></p>
</form></dialog>
<dialog id="schedule-dialog" aria-labelledby="schedule-title"><form method="dialog" id="schedule-form">
<h2 id="schedule-title">Schedule <span class="target"></span></h2>
<label for="schedule-at">Publish at (your local time, <span class="tz"></span>)</label><input id="schedule-at" name="publish_at" type="datetime-local" required>
<p class="muted">Stored in UTC: <output id="schedule-utc"></output></p>
<p class="error dialog-error" role="alert"></p>
<p class="buttons"><button type="submit" class="primary" value="ok">Schedule</button> <button type="button" class="cancel">Cancel</button></p>
</form></dialog>
<dialog id="retract-dialog" aria-labelledby="retract-title"><form method="dialog" id="retract-form">
<h2 id="retract-title">Retract <span class="target"></span></h2>
<label for="retract-reason">Reason</label><select id="retract-reason" name="reason" required>${reasons}</select>
<label for="retract-duplicate">Duplicate of (article id, for “Duplicate”)</label><input id="retract-duplicate" name="duplicate_of" inputmode="numeric" pattern="[0-9]*" autocomplete="off">
<label for="retract-note">Note for editors (optional)</label><textarea id="retract-note" name="note" maxlength="1000" rows="3"></textarea>
<p class="error dialog-error" role="alert"></p>
<p class="buttons"><button type="submit" class="danger" value="ok">Retract</button> <button type="button" class="cancel">Cancel</button></p>
</form></dialog>`;
}

export function queuePage(items: QueueItem[], total: number, prov: Map<number, CachedProvenance>, now: number): string {
  return queuePageOf(
    items.map((i) => queueRow(i, prov.get(i.id), now)),
    total,
  );
}

/** The queue page around rendered rows (newest first). */
/**
 * The queue's rows with the members of one story together: the first (newest) member's place holds
 * one group row (the story, how many wait, their sources; expandable to the members' rows) with the
 * one-motion action: approve the chosen member, kill the others as its duplicates.
 */
export function groupByStory(entries: { id: number; story_id: number | null; source: string }[], rowHtml: (string | undefined)[]): string[] {
  const shown = entries.map((e, i) => ({ ...e, html: rowHtml[i] })).filter((e): e is typeof e & { html: string } => e.html !== undefined);
  const byStory = new Map<number, typeof shown>();
  for (const e of shown) if (e.story_id !== null) byStory.set(e.story_id, [...(byStory.get(e.story_id) ?? []), e]);
  const out: string[] = [];
  const done = new Set<number>();
  for (const e of shown) {
    const members = e.story_id === null ? [] : byStory.get(e.story_id)!;
    if (members.length < 2) out.push(e.html);
    else if (!done.has(e.story_id!)) {
      done.add(e.story_id!);
      out.push(storyGroup(e.story_id!, members));
    }
  }
  return out;
}

function storyGroup(storyId: number, members: { id: number; source: string; html: string }[]): string {
  const sources = [...new Set(members.map((m) => m.source))];
  const oldest = [...members].sort((a, b) => a.id - b.id);
  const options = oldest.map((m, i) => `<option value="${m.id}"${i === 0 ? ' selected' : ''}>#${m.id} (${esc(m.source)})</option>`).join('');
  return `<li class="story-group" data-story="${storyId}" data-count="${members.length}"><details>
<summary>Story <a href="/api/v1/stories/${storyId}/">#${storyId}</a>: <span class="story-count">${members.length}</span> waiting from ${sources.length} source${sources.length === 1 ? '' : 's'}: ${sources.map(esc).join(', ')}</summary>
<ol class="queue story-members">
${members.map((m) => m.html).join('\n')}
</ol>
</details>
<div class="story-actions"><label>Approve <select class="story-pick" aria-label="The member to approve">${options}</select></label> <button type="button" data-story-approve="${storyId}">Approve it, kill the others as its duplicates</button> <span class="story-outcome" role="status"></span></div>
</li>`;
}

export function queuePageOf(rowHtml: string[], total: number, shownCount: number = rowHtml.length): string {
  const rows = rowHtml.join('\n');
  return `<h1>Review queue</h1>
<p id="queue-count"><span id="queue-total">${total}</span> waiting${total > shownCount ? ` (the newest ${shownCount} shown)` : ''}. New submissions and other editors' decisions appear here live. <span id="live" class="live" data-state="connecting">Live: connecting…</span></p>
${shortcutsHtml()}
<ol id="queue" class="queue" aria-label="Items awaiting review">
${rows}
</ol>
<p id="queue-empty" class="muted"${shownCount ? ' hidden' : ''}>Nothing is waiting for review.</p>
${dialogs()}`;
}

export function itemPage(i: QueueItem, p: CachedProvenance, now: number, assetTags: EditorAssetTag[] = []): string {
  const who = submitterName(i);
  const list = (v: string[]) => esc(v.join(', '));
  const decision = i.decision_reason
    ? `<p class="decision">Reason: ${esc(DECISION_REASON_LABELS[i.decision_reason as keyof typeof DECISION_REASON_LABELS] ?? i.decision_reason)}${i.duplicate_of ? `, duplicate of <a href="/editor/items/${i.duplicate_of}">#${i.duplicate_of}</a>` : ''}${i.decision_note ? `. Note: ${esc(i.decision_note)}` : ''}</p>`
    : '';
  return `<p><a href="/editor/">← Back to the queue</a></p>
<div class="item item-page" id="item-${i.id}" data-id="${i.id}" data-status="${esc(i.status)}"><article aria-labelledby="h-${i.id}">
<h1 id="h-${i.id}">${esc(i.headline)}</h1>
<dl class="facts">
<dt>Status</dt><dd id="item-status">${esc(i.status)}${i.scheduled_for ? ` for <time datetime="${i.scheduled_for.toISOString()}" class="local">${i.scheduled_for.toISOString()}</time>` : ''}</dd>
<dt>URL</dt><dd><a href="${esc(i.url)}" rel="noopener noreferrer" target="_blank">${esc(i.url)}</a> (${esc(domainOf(i.url))})</dd>
<dt>Kind</dt><dd>${i.origin === 'tsunami' ? `Wire item from ${esc(i.source)}` : `Submission (${esc(i.source)})`}</dd>
<dt>Submitter</dt><dd>${who ? `${esc(who)} <span class="acct acct-${esc(i.submitter_account_type)}">${esc(i.submitter_account_type)}</span>` : '—'}</dd>
<dt>Submitted</dt><dd><time datetime="${i.created_at.toISOString()}">${age(i.created_at, now)}</time></dd>
<dt>Tokens</dt><dd>${list(i.token_symbols) || '—'} ${i.token_addresses.length ? `<span class="muted">${list(i.token_addresses)}</span>` : ''}</dd>
<dt>Tags</dt><dd>${list(i.tags) || '—'}</dd>
<dt>Issuer</dt><dd>${i.issuer_name ? esc(i.issuer_name) : '—'}${i.issuer_website ? ` (${esc(i.issuer_website)})` : ''}</dd>
<dt>Content type</dt><dd>${i.content_type ? esc(i.content_type) : '—'}</dd>
</dl>
${decision}
<h2>Provenance</h2>
${provenanceHtml(i.id, p)}
<h2>Decide</h2>
${actions(i)}
<p class="outcome" role="status"></p>
</article></div>
${assetTagsHtml(i.id, assetTags)}
<h2>Edit</h2>
<form id="edit-form" class="edit" data-id="${i.id}">
<label for="edit-headline">Headline</label><input id="edit-headline" name="headline" value="${esc(i.headline)}" maxlength="300" required>
<label for="edit-tags">Tags (comma-separated)</label><input id="edit-tags" name="tags" value="${list(i.tags)}">
<label for="edit-addresses">Token addresses (comma-separated)</label><input id="edit-addresses" name="token_addresses" value="${list(i.token_addresses)}">
<label for="edit-symbols">Token symbols (comma-separated)</label><input id="edit-symbols" name="token_symbols" value="${list(i.token_symbols)}">
<label for="edit-issuer-name">Issuer name</label><input id="edit-issuer-name" name="issuer_name" value="${esc(i.issuer_name ?? '')}">
<label for="edit-issuer-website">Issuer website</label><input id="edit-issuer-website" name="issuer_website" value="${esc(i.issuer_website ?? '')}">
<label for="edit-content-type">Content type</label><input id="edit-content-type" name="content_type" value="${esc(i.content_type ?? '')}" placeholder="e.g. governance_proposal">
<p class="error" id="edit-error" role="alert"></p>
<p><button type="submit" class="primary">Save changes</button></p>
</form>
${shortcutsHtml()}
${dialogs()}`;
}

/** An article's asset tags as the editor edits them: each visible tag with a remove button, an editor's removals, and an add form (POST/DELETE /api/v1/news/{id}/assets/). */
function assetTagsHtml(id: number, tags: EditorAssetTag[]): string {
  const shown = tags.filter((t) => !t.removed);
  const removed = tags.filter((t) => t.removed);
  const item = (t: EditorAssetTag) =>
    `<li data-asset="${esc(t.id)}">${esc(t.name)} <span class="muted">(${esc(t.symbol)}, <code>${esc(t.id)}</code>, salience ${t.salience.toFixed(2)}${t.primary ? ', primary' : ''}, ${t.source === 'editor' ? 'added by an editor' : 'tagged by the worker'})</span> <button type="button" class="asset-remove" data-asset="${esc(t.id)}" aria-label="Remove ${esc(t.name)}">Remove</button></li>`;
  return `<h2>Assets</h2>
<ul id="asset-tags" class="asset-tags" data-id="${id}">${shown.map(item).join('')}</ul>
${shown.length ? '' : '<p class="muted" id="asset-none">No asset tags.</p>'}
${removed.length ? `<p class="muted" id="asset-removed">Removed by an editor (kept off when the worker re-tags): ${removed.map((t) => `${esc(t.name)} (<code>${esc(t.id)}</code>)`).join(', ')}</p>` : ''}
<form id="asset-add" class="edit" data-id="${id}">
<label for="asset-add-id">Add an asset by id (e.g. bitcoin; search: <a href="/api/v1/assets/?q=bitcoin">/api/v1/assets/?q=</a>)</label><input id="asset-add-id" name="asset" maxlength="100" required autocomplete="off">
<p class="error" id="asset-error" role="alert"></p>
<p><button type="submit">Add asset</button></p>
</form>`;
}

export function notFoundPage(id: number): string {
  return `<h1>Not found</h1><p>There is no article ${id}.</p><p><a href="/editor/">Back to the queue</a></p>`;
}

export function modlogPage(): string {
  return `<h1>Moderation log</h1>
<p>The public log of editorial actions, newest first (also as JSON: <a href="/api/v1/modlog/">/api/v1/modlog/</a>). Notes are shown to editors only.</p>
<form id="modlog-filter" class="filters">
<label for="ml-action">Action</label><select id="ml-action" name="action"><option value="">Any</option><option>approve</option><option>kill</option><option>schedule</option><option>retract</option><option>edit</option><option>story_merge</option><option>story_split</option><option>credibility_confirm</option><option>credibility_clear</option></select>
<label for="ml-editor">Editor</label><input id="ml-editor" name="editor" autocomplete="off">
<p><button type="submit">Filter</button></p>
</form>
<table id="modlog" class="modlog"><caption class="visually-hidden">Moderation log</caption><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Article</th><th scope="col">Reason</th><th scope="col">Editor</th></tr></thead><tbody></tbody></table>
<p id="modlog-error" class="error" role="alert"></p>`;
}
