/**
 * The public moderation log: rows of article_edits that are editorial transitions
 * (approve, kill, schedule, retract) or edits made while the article was published, editors'
 * story merges and splits (story_edits), and staff decisions on credibility flags
 * (credibility_decisions), newest first.
 * Served by the partial index article_edits_modlog_idx (and article_edits_editor_idx per editor).
 */
import { createHmac } from 'node:crypto';
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../platform/db.js';
import type { ModlogAction } from '../articles/index.js';

interface ModlogFilter {
  action?: ModlogAction | StoryModlogAction | CredibilityModlogAction;
  /** null: the editor filter named nobody (no rows). */
  editorId?: number | null;
  since?: Date;
  until?: Date;
}

/** Editors' story merges and splits (story_edits), listed in the log beside the article actions. */
export const STORY_MODLOG_ACTIONS = ['story_merge', 'story_split'] as const;
type StoryModlogAction = (typeof STORY_MODLOG_ACTIONS)[number];
const isStoryAction = (a: string): a is StoryModlogAction => (STORY_MODLOG_ACTIONS as readonly string[]).includes(a);

/** Staff decisions on credibility flags and accounts (credibility_decisions). */
export const CREDIBILITY_MODLOG_ACTIONS = ['credibility_confirm', 'credibility_clear'] as const;
type CredibilityModlogAction = (typeof CREDIBILITY_MODLOG_ACTIONS)[number];
const isCredibilityAction = (a: string): a is CredibilityModlogAction => (CREDIBILITY_MODLOG_ACTIONS as readonly string[]).includes(a);
type Source = 'article' | 'story' | 'credibility';
const sourceOf = (a: string): Source => (isStoryAction(a) ? 'story' : isCredibilityAction(a) ? 'credibility' : 'article');

export interface ModlogRow {
  id: number;
  action: ModlogAction | StoryModlogAction | CredibilityModlogAction;
  /** Null for a story entry. */
  article_id: number | null;
  headline: string | null;
  slug: string | null;
  article_status: string | null;
  reason: string | null;
  note: string | null;
  duplicate_of: number | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  created_at: Date;
  editor_id: number | null;
  editor_username: string | null;
  /** Story entries: the story kept, the other story (merged away or new), headlines and the members moved. */
  story_id: number | null;
  other_story_id: number | null;
  story_headline: string | null;
  other_headline: string | null;
  items: { kind: string; id: number }[] | null;
  forced: boolean | null;
  /** Credibility entries: the month, the flag's kind (or `account`) and its accounts. */
  credibility: { month: string; kind: string; members: number[] } | null;
}

const PUBLIC_ROWS = sql<SqlBool>`(e.action <> 'edit' OR e.status_at = 'approved')`;

const CREDIBILITY_DECISION = { credibility_confirm: 'confirmed', credibility_clear: 'cleared' } as const;

function actionFilter(eb: any, action: NonNullable<ModlogFilter['action']>, source: Source): Expression<SqlBool> {
  if (sourceOf(action) !== source) return sql<SqlBool>`false`;
  if (source === 'story') return eb('e.action', '=', action.slice('story_'.length));
  if (source === 'credibility') return eb('e.decision', '=', CREDIBILITY_DECISION[action as CredibilityModlogAction]);
  return eb('e.action', '=', action);
}

function where(f: ModlogFilter, source: Source) {
  return (eb: any): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = source === 'article' ? [PUBLIC_ROWS] : [];
    if (f.action) parts.push(actionFilter(eb, f.action, source));
    if (f.editorId !== undefined) parts.push(f.editorId === null ? sql<SqlBool>`false` : eb(source === 'credibility' ? 'e.decided_by' : 'e.editor_id', '=', f.editorId));
    if (f.since) parts.push(eb('e.created_at', '>=', f.since));
    if (f.until) parts.push(eb('e.created_at', '<', f.until));
    return eb.and(parts);
  };
}

/**
 * What a source selects for a column it does not name: every source's table is `e`, with its own
 * id, note and created_at; the other columns a source lacks are NULL (changes: `{}`).
 */
const DEFAULT_COLUMNS = {
  id: sql.ref('e.id'),
  note: sql.ref('e.note'),
  created_at: sql.ref('e.created_at'),
  article_id: sql`NULL::int`,
  headline: sql`NULL::text`,
  slug: sql`NULL::text`,
  article_status: sql`NULL::text`,
  reason: sql`NULL::text`,
  duplicate_of: sql`NULL::int`,
  changes: sql`'{}'::jsonb`,
  story_id: sql`NULL::int`,
  other_story_id: sql`NULL::int`,
  story_headline: sql`NULL::text`,
  other_headline: sql`NULL::text`,
  items: sql`NULL::jsonb`,
  forced: sql`NULL::boolean`,
  credibility: sql`NULL::jsonb`,
};

/** The union's columns, in its order (ModlogRow's, without the editor's username). */
const COLUMNS = [
  'id',
  'action',
  'article_id',
  'headline',
  'slug',
  'article_status',
  'reason',
  'note',
  'duplicate_of',
  'changes',
  'created_at',
  'editor_id',
  'story_id',
  'other_story_id',
  'story_headline',
  'other_headline',
  'items',
  'forced',
  'credibility',
  'kind_order',
] as const;
type Defaulted = keyof typeof DEFAULT_COLUMNS;
type Own = Exclude<(typeof COLUMNS)[number], Defaulted>;

/** One source's select list: the columns it names, DEFAULT_COLUMNS for the rest, in the union's order. */
function sourceColumns(own: Record<Own, RawBuilder<unknown>> & Partial<Record<Defaulted, RawBuilder<unknown>>>) {
  return COLUMNS.map((c) => (own[c] ?? DEFAULT_COLUMNS[c as Defaulted]).as(c));
}

function articleEntries(db: Db, f: ModlogFilter) {
  return db
    .selectFrom('article_edits as e')
    .innerJoin('articles as a', 'a.id', 'e.article_id')
    .select(
      sourceColumns({
        action: sql.ref('e.action'),
        article_id: sql.ref('e.article_id'),
        headline: sql.ref('a.headline'),
        slug: sql.ref('a.slug'),
        article_status: sql.ref('a.status'),
        reason: sql.ref('e.reason'),
        duplicate_of: sql.ref('e.duplicate_of'),
        changes: sql.ref('e.changes'),
        editor_id: sql.ref('e.editor_id'),
        kind_order: sql`0`,
      }),
    )
    .where(where(f, 'article'));
}

function storyEntries(db: Db, f: ModlogFilter) {
  return db
    .selectFrom('story_edits as e')
    .select(
      sourceColumns({
        action: sql`'story_' || e.action`,
        editor_id: sql.ref('e.editor_id'),
        story_id: sql.ref('e.story_id'),
        other_story_id: sql.ref('e.other_story_id'),
        story_headline: sql.ref('e.headline'),
        other_headline: sql.ref('e.other_headline'),
        items: sql.ref('e.items'),
        forced: sql.ref('e.forced'),
        kind_order: sql`1`,
      }),
    )
    .where(where(f, 'story'));
}

function credibilityEntries(db: Db, f: ModlogFilter) {
  return db
    .selectFrom('credibility_decisions as e')
    .select(
      sourceColumns({
        action: sql`CASE e.decision WHEN 'confirmed' THEN 'credibility_confirm' ELSE 'credibility_clear' END`,
        editor_id: sql.ref('e.decided_by'),
        credibility: sql`jsonb_build_object('month', e.month, 'kind', e.kind, 'members', to_jsonb(e.members))`,
        kind_order: sql`2`,
      }),
    )
    .where(where(f, 'credibility'));
}

export async function modlogPage(db: Db, f: ModlogFilter, page: number, perPage: number): Promise<{ rows: ModlogRow[]; count: number }> {
  const both = articleEntries(db, f)
    .unionAll(storyEntries(db, f) as any)
    .unionAll(credibilityEntries(db, f) as any);
  const [rows, count] = await Promise.all([
    db
      .selectFrom(both.as('x'))
      .leftJoin('users as u', 'u.id', 'x.editor_id')
      .selectAll('x')
      .select('u.username as editor_username')
      .orderBy('x.created_at', 'desc')
      .orderBy('x.kind_order', 'desc')
      .orderBy('x.id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    db
      .selectFrom(both.as('x'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as unknown as ModlogRow[], count: Number(count.n) };
}

/**
 * The stable pseudonym of an editor without a username: `editor-` and 10 hex digits of
 * HMAC-SHA256(key, "modlog:<user id>"). It reveals neither the wallet address nor the user id, and
 * stays the same as long as the key (JWT_SECRET) does.
 */
export function editorPseudonym(key: string, userId: number): string {
  return `editor-${createHmac('sha256', key).update(`modlog:${userId}`).digest('hex').slice(0, 10)}`;
}

const PSEUDONYM_PATTERN = /^editor-[0-9a-f]{10}$/;

/** The editor a modlog `editor` filter names (username, case-insensitive, or pseudonym); null for nobody. */
export async function resolveModlogEditor(db: Db, key: string, name: string): Promise<number | null> {
  if (PSEUDONYM_PATTERN.test(name)) {
    // Editors are few: compare against the pseudonyms of everyone without a username who ever acted.
    const ids = await db
      .selectFrom('article_edits as e')
      .innerJoin('users as u', 'u.id', 'e.editor_id')
      .select('u.id')
      .where('u.username', 'is', null)
      .union(db.selectFrom('story_edits as e').innerJoin('users as u', 'u.id', 'e.editor_id').select('u.id').where('u.username', 'is', null))
      .union(db.selectFrom('credibility_decisions as e').innerJoin('users as u', 'u.id', 'e.decided_by').select('u.id').where('u.username', 'is', null))
      .execute();
    return ids.find((r) => editorPseudonym(key, r.id) === name)?.id ?? null;
  }
  const u = await db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return u?.id ?? null;
}
