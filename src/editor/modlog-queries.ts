/**
 * The public moderation log: rows of article_edits that are editorial transitions
 * (approve, kill, schedule, retract) or edits made while the article was published, newest first.
 * Served by the partial index article_edits_modlog_idx (and article_edits_editor_idx per editor).
 */
import { createHmac } from 'node:crypto';
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../platform/db.js';
import type { ModlogAction } from '../articles/index.js';

interface ModlogFilter {
  action?: ModlogAction;
  /** null: the editor filter named nobody (no rows). */
  editorId?: number | null;
  since?: Date;
  until?: Date;
}

export interface ModlogRow {
  id: number;
  action: ModlogAction;
  article_id: number;
  headline: string;
  slug: string;
  article_status: string;
  reason: string | null;
  note: string | null;
  duplicate_of: number | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  created_at: Date;
  editor_id: number | null;
  editor_username: string | null;
}

const PUBLIC_ROWS = sql<SqlBool>`(e.action <> 'edit' OR e.status_at = 'approved')`;

function where(f: ModlogFilter) {
  return (eb: any): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [PUBLIC_ROWS];
    if (f.action) parts.push(eb('e.action', '=', f.action));
    if (f.editorId !== undefined) parts.push(f.editorId === null ? sql<SqlBool>`false` : eb('e.editor_id', '=', f.editorId));
    if (f.since) parts.push(eb('e.created_at', '>=', f.since));
    if (f.until) parts.push(eb('e.created_at', '<', f.until));
    return eb.and(parts);
  };
}

export async function modlogPage(db: Db, f: ModlogFilter, page: number, perPage: number): Promise<{ rows: ModlogRow[]; count: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('article_edits as e')
      .innerJoin('articles as a', 'a.id', 'e.article_id')
      .leftJoin('users as u', 'u.id', 'e.editor_id')
      .select([
        'e.id',
        'e.action',
        'e.article_id',
        'a.headline',
        'a.slug',
        'a.status as article_status',
        'e.reason',
        'e.note',
        'e.duplicate_of',
        'e.changes',
        'e.created_at',
        'e.editor_id',
        'u.username as editor_username',
      ])
      .where(where(f))
      .orderBy('e.created_at', 'desc')
      .orderBy('e.id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    db
      .selectFrom('article_edits as e')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(where(f))
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
    const ids = await db.selectFrom('article_edits as e').innerJoin('users as u', 'u.id', 'e.editor_id').select('u.id').distinct().where('u.username', 'is', null).execute();
    return ids.find((r) => editorPseudonym(key, r.id) === name)?.id ?? null;
  }
  const u = await db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return u?.id ?? null;
}
