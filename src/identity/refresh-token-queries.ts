import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export async function insertRefreshToken(db: Db, t: { id: string; family: string; userId: number; expiresAt: Date }) {
  await db.insertInto('refresh_tokens').values({ id: t.id, family: t.family, user_id: t.userId, expires_at: t.expiresAt }).execute();
}

/** The refresh token of this id and user, row-locked until the transaction ends. */
export async function lockRefreshToken(trx: Db, id: string, userId: number) {
  return trx.selectFrom('refresh_tokens').selectAll().where('id', '=', id).where('user_id', '=', userId).forUpdate().executeTakeFirst();
}

export async function markRefreshTokenUsed(trx: Db, id: string): Promise<void> {
  await trx
    .updateTable('refresh_tokens')
    .set({ used_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** Revoke every live token of a refresh-token family. */
export async function revokeFamily(db: Db, family: string) {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: sql`now()` })
    .where('family', '=', family)
    .where('revoked_at', 'is', null)
    .execute();
}
