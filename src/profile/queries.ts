import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export interface ProfilePatch {
  display_name?: string | null;
  bio?: string | null;
  twitter_handle?: string | null;
  website?: string | null;
  location?: string | null;
  account_type?: 'human' | 'cyborg' | 'bot';
  model_name?: string | null;
  profile_picture?: string | null;
}

/** The user's stored picture name, the row locked for update; undefined when the account is gone. */
export async function lockProfilePicture(trx: Db, userId: number) {
  return trx.selectFrom('users').select('profile_picture').where('id', '=', userId).forUpdate().executeTakeFirst();
}

/** Apply the patch; returns the updated row. */
export async function applyProfilePatch(trx: Db, userId: number, patch: ProfilePatch) {
  return trx
    .updateTable('users')
    .set({ ...patch, updated_at: sql`now()` })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Set the username; `taken` when another account holds it in any letter case. */
export async function setUsername(db: Db, userId: number, username: string) {
  const clash = await db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .where('id', '<>', userId)
    .executeTakeFirst();
  if (clash) return { taken: true as const };
  try {
    const row = await db
      .updateTable('users')
      .set({ username, updated_at: sql`now()` })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirst();
    return { taken: false as const, row };
  } catch (err) {
    // Two accounts claiming the same name at once: the unique index on lower(username) decides.
    if ((err as { code?: string }).code === '23505') return { taken: true as const };
    throw err;
  }
}

export async function findUserByUsername(db: Db, username: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

/**
 * Status groups of the own-submissions list: `approved` covers articles an editor accepted
 * (approved, and scheduled for a future publish time), `submitted` is pending review, `killed` was
 * rejected; `all` also includes retracted articles.
 */
const SUBMISSION_STATUS_GROUPS = {
  submitted: ['submitted'],
  approved: ['approved', 'scheduled'],
  killed: ['killed'],
} as const;
type SubmissionFilter = keyof typeof SUBMISSION_STATUS_GROUPS | 'all';

export async function listOwnSubmissions(db: Db, userId: number, filter: SubmissionFilter, page: number, perPage: number) {
  let q = db.selectFrom('articles').where('submitted_by', '=', userId);
  if (filter !== 'all') q = q.where('status', 'in', [...SUBMISSION_STATUS_GROUPS[filter]]);
  const [rows, count] = await Promise.all([
    q
      .select(['id', 'headline', 'url', 'status', 'created_at', 'published_at', 'decision_reason', 'decision_note', 'duplicate_of'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function submissionStats(db: Db, userId: number) {
  const r = await db
    .selectFrom('articles')
    .where('submitted_by', '=', userId)
    .select([
      sql<number>`count(*)`.as('total'),
      sql<number>`count(*) FILTER (WHERE status IN ('approved', 'scheduled'))`.as('approved'),
      sql<number>`count(*) FILTER (WHERE status = 'submitted')`.as('pending'),
      sql<number>`count(*) FILTER (WHERE status = 'killed')`.as('rejected'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(r.total), approved: Number(r.approved), pending: Number(r.pending), rejected: Number(r.rejected) };
}
