import { sql } from 'kysely';
import { getAddress } from 'viem';
import type { Db } from '../db.js';
import type { Role } from '../auth/tokens.js';

export type UserRow = Awaited<ReturnType<typeof getUserById>>;

export async function getUserById(db: Db, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getUserByAddress(db: Db, address: string) {
  return db.selectFrom('users').selectAll().where('wallet_address', '=', address.toLowerCase()).executeTakeFirst();
}

/** Create the user on first sign-in (address unique, case-insensitive) and stamp the login time. */
export async function upsertUserOnSignIn(db: Db, address: string) {
  return db
    .insertInto('users')
    .values({ wallet_address: address.toLowerCase(), last_login_at: sql`now()` })
    .onConflict((oc) => oc.column('wallet_address').doUpdateSet({ last_login_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The user's roles, or null when the user does not exist. */
export async function userRoles(db: Db, id: number): Promise<Role[] | null> {
  const row = await db.selectFrom('users').select('roles').where('id', '=', id).executeTakeFirst();
  return row ? (row.roles as Role[]) : null;
}

/** The profile record (GET /wallet/me/ and the verify response). */
export function toProfile(u: NonNullable<UserRow>, publicBaseUrl: string) {
  return {
    id: u.id,
    username: u.username,
    ethereum_address: getAddress(u.wallet_address),
    display_name: u.display_name,
    bio: u.bio,
    profile_picture: u.profile_picture ? new URL(`/media/profile-pictures/${u.profile_picture}`, publicBaseUrl).toString() : null,
    twitter_handle: u.twitter_handle,
    website: u.website,
    location: u.location,
    account_type: u.account_type,
    model_name: u.model_name,
    roles: u.roles,
    created_at: u.created_at.toISOString(),
  };
}
