import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export async function insertRefreshToken(db: Db, t: { id: string; family: string; userId: number; expiresAt: Date }) {
  await db.insertInto('refresh_tokens').values({ id: t.id, family: t.family, user_id: t.userId, expires_at: t.expiresAt }).execute();
}

type SpendResult = 'ok' | 'reused' | 'revoked' | 'unknown';

/**
 * Spend a refresh token exactly once. A token that was already spent (or loses a race to be spent)
 * is a replay: the whole family is revoked, which logs out whoever holds the newer tokens too.
 */
export async function spendRefreshToken(db: Db, id: string, userId: number): Promise<SpendResult> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('refresh_tokens').selectAll().where('id', '=', id).where('user_id', '=', userId).forUpdate().executeTakeFirst();
    if (!row) return 'unknown';
    if (row.revoked_at) return 'revoked';
    if (row.used_at) {
      await trx
        .updateTable('refresh_tokens')
        .set({ revoked_at: sql`now()` })
        .where('family', '=', row.family)
        .where('revoked_at', 'is', null)
        .execute();
      return 'reused';
    }
    await trx
      .updateTable('refresh_tokens')
      .set({ used_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    return 'ok';
  });
}

export async function revokeFamily(db: Db, family: string) {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: sql`now()` })
    .where('family', '=', family)
    .where('revoked_at', 'is', null)
    .execute();
}
