/**
 * Which relayed events call for tagging: an article created (news.submitted), its headline changed
 * (article.edited from the page title or an editor's edit that touched the headline), a wire item
 * ingested (news.tsunami, whose id is the wire item's). The tagger's own article.edited (reason
 * `assets`) never does, nor a page title whose event carries `assets` (tagged in its transaction).
 */
interface TagTarget {
  kind: 'article' | 'wire_item';
  id: number;
}

interface RelayedEvent {
  type: string;
  article_id: number | null;
  /** The event as JSON text (the outbox row's payload). */
  payload: string;
}

function parse(payload: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(payload);
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function headlineEdited(payload: string): boolean {
  const p = parse(payload);
  // The page-title job tags the headline in its own transaction and names the tags in the event.
  if (p.reason === 'page_title') return !Array.isArray(p.assets);
  return p.reason === 'edit' && Array.isArray(p.fields) && p.fields.includes('headline');
}

export function tagTargets(rows: readonly RelayedEvent[]): TagTarget[] {
  const out = new Map<string, TagTarget>();
  for (const r of rows) {
    let target: TagTarget | undefined;
    if (r.type === 'news.submitted' && r.article_id !== null) target = { kind: 'article', id: r.article_id };
    else if (r.type === 'article.edited' && r.article_id !== null && headlineEdited(r.payload)) target = { kind: 'article', id: r.article_id };
    else if (r.type === 'news.tsunami') {
      const id = parse(r.payload).id;
      if (typeof id === 'number' && Number.isInteger(id) && id > 0) target = { kind: 'wire_item', id };
    }
    if (target) out.set(`${target.kind}:${target.id}`, target);
  }
  return [...out.values()];
}

/** One waiting asset-tag run per item. */
export const assetTagDedupeId = (t: TagTarget): string => `asset-tag-${t.kind}-${t.id}`;
