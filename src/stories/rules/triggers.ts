/**
 * Which logged events call for a story assignment (the relay enqueues story-assign for each, at
 * least once, after the change committed):
 *  - news.submitted of an article that is not sponsored (a submission or a wire promotion);
 *  - news.tsunami (a wire item was ingested; the event's `id` is the wire item's);
 *  - article.edited for a page title that landed or an editor's edit that touched the headline.
 */
interface LoggedEvent {
  type: string;
  article_id: number | null;
  payload: string;
}

interface AssignmentRequest {
  kind: 'article' | 'wire';
  id: number;
}

function parsed(payload: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(payload);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function requestOf(e: LoggedEvent): AssignmentRequest | null {
  const p = parsed(e.payload);
  if (e.type === 'news.tsunami') return typeof p.id === 'number' ? { kind: 'wire', id: p.id } : null;
  if (e.article_id === null) return null;
  if (e.type === 'news.submitted') return p.sponsored === null || p.sponsored === undefined ? { kind: 'article', id: e.article_id } : null;
  if (e.type !== 'article.edited') return null;
  const headlineEdit = p.reason === 'edit' && Array.isArray(p.fields) && p.fields.includes('headline');
  return p.reason === 'page_title' || headlineEdit ? { kind: 'article', id: e.article_id } : null;
}

/** The assignments a batch of events calls for, each item once, in event order. */
export function storyAssignments(events: readonly LoggedEvent[]): AssignmentRequest[] {
  const seen = new Set<string>();
  const out: AssignmentRequest[] = [];
  for (const e of events) {
    const r = requestOf(e);
    if (!r || seen.has(`${r.kind}:${r.id}`)) continue;
    seen.add(`${r.kind}:${r.id}`);
    out.push(r);
  }
  return out;
}

/** The deduplication id of an item's story-assign job. */
export function storyAssignDedupeId(r: AssignmentRequest): string {
  return `story-assign-${r.kind}-${r.id}`;
}
