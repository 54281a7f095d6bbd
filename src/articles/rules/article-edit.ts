/**
 * Editorial edits: which fields an editor may change, and the change record kept in
 * article_edits.changes ({field: {from, to}}, only the fields whose value really changed). Pure.
 */
import { slugify } from '../../platform/url/slug.js';

export interface EditableFields {
  headline: string;
  tags: string[];
  token_addresses: string[];
  token_symbols: string[];
  issuer_name: string | null;
  issuer_website: string | null;
  content_type: string | null;
}

type FieldChange = { from: unknown; to: unknown };
export type Changes = Record<string, FieldChange>;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of `patch` that differ from `current`, as {field: {from, to}}. */
export function diffEdit(current: EditableFields, patch: Partial<EditableFields>): Changes {
  const changes: Changes = {};
  for (const key of Object.keys(patch) as (keyof EditableFields)[]) {
    const to = patch[key];
    if (to === undefined) continue;
    if (!same(current[key], to)) changes[key] = { from: current[key], to };
  }
  return changes;
}

/**
 * Slugs follow the headline until the article is first published; after that the slug stays, so
 * links and events already sent keep pointing at the same article.
 */
function slugFollowsHeadline(status: string, publishedAt: Date | null): boolean {
  return publishedAt === null && (status === 'submitted' || status === 'scheduled' || status === 'killed');
}

/**
 * The columns an edit writes: the changed fields; a changed headline becomes the editor's
 * (headline_source 'editor') and moves the slug while slugFollowsHeadline.
 */
export function editColumns(current: { status: string; published_at: Date | null }, changes: Changes): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [k, c] of Object.entries(changes)) set[k] = c.to;
  if (changes.headline) {
    set.headline_source = 'editor';
    if (slugFollowsHeadline(current.status, current.published_at)) set.slug = slugify(changes.headline.to as string);
  }
  return set;
}
