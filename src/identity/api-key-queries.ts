import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { Tier } from './api-keys.js';

export async function insertApiKey(
  db: Db,
  k: { id: string; hash: string; first4: string; last4: string; name: string; email: string | null; useCase: string | null; userId: number | null; tier?: Tier },
) {
  return db
    .insertInto('api_keys')
    .values({
      id: k.id,
      key_hash: k.hash,
      key_first4: k.first4,
      key_last4: k.last4,
      name: k.name,
      email: k.email,
      use_case: k.useCase,
      user_id: k.userId,
      tier: k.tier ?? 'free',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getApiKey(db: Db, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Db) {
  return db.selectFrom('api_keys').selectAll().orderBy('created_at', 'desc').execute();
}

export async function revokeApiKey(db: Db, id: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Replace the secret of a live key (same id, tier and usage history); the old secret stops working at once. */
export async function rotateApiKey(db: Db, id: string, k: { hash: string; first4: string; last4: string }) {
  return db
    .updateTable('api_keys')
    .set({ key_hash: k.hash, key_first4: k.first4, key_last4: k.last4, rotated_at: sql`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function setApiKeyTier(db: Db, id: string, tier: Tier) {
  return db.updateTable('api_keys').set({ tier }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The API key with this hash and its linked user, if any (the authentication lookup). */
export async function findApiKeyWithUser(db: Db, hash: string) {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('users as u', 'u.id', 'k.user_id')
    .select(['k.id', 'k.tier', 'k.revoked_at', 'u.id as user_id', 'u.wallet_address', 'u.roles'])
    .where('k.key_hash', '=', hash)
    .executeTakeFirst();
}

/** The auth generation (moved by every change to keys or roles); undefined before the first one. */
export async function authGeneration(db: Db): Promise<string | undefined> {
  const r = await db.selectFrom('auth_generation').select('generation').executeTakeFirst();
  return r ? String(r.generation) : undefined;
}

/** Keys an account signed up for since `since` (its per-account sign-up limit), and the oldest of them. */
export async function recentSignups(db: Db, userId: number, since: Date): Promise<{ n: number; oldest: Date | null }> {
  const r = await db
    .selectFrom('api_keys')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { n: Number(r.n), oldest: r.oldest ? new Date(r.oldest as unknown as string) : null };
}

/** Delete free keys that no account holds and nobody ever used, signed up before `cutoff` (one batch). */
export async function pruneUnusedKeys(db: Db, cutoff: Date, batch: number): Promise<number> {
  const r = await sql`
    DELETE FROM api_keys WHERE id IN (
      SELECT id FROM api_keys
      WHERE tier = 'free' AND user_id IS NULL AND last_used_at IS NULL AND created_at < ${cutoff}
      ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
