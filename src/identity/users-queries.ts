import { sql } from 'kysely';
import { getAddress } from 'viem';
import type { Db } from '../platform/db.js';
import type { Role } from './tokens.js';

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

/** The user with this address (exact, lower-case) and its roles, row-locked until the transaction ends. */
export async function lockUserRoles(trx: Db, address: string) {
  return trx.selectFrom('users').select(['id', 'roles']).where('wallet_address', '=', address).forUpdate().executeTakeFirst();
}

/** A user row for an address that has none; undefined when one appeared meanwhile (ON CONFLICT DO NOTHING). */
export async function insertUserIfAbsent(trx: Db, address: string) {
  return trx
    .insertInto('users')
    .values({ wallet_address: address })
    .onConflict((oc) => oc.column('wallet_address').doNothing())
    .returning(['id', 'roles'])
    .executeTakeFirst();
}

/** Add a role to the user's roles; returns the roles after. */
export async function appendRole(trx: Db, userId: number, role: Role): Promise<string[]> {
  const r = await trx
    .updateTable('users')
    .set({ roles: sql<string[]>`array_append(roles, ${role})`, updated_at: sql`now()` })
    .where('id', '=', userId)
    .returning('roles')
    .executeTakeFirstOrThrow();
  return r.roles;
}

/** Remove a role from the user's roles; returns the roles after. */
export async function removeRole(trx: Db, userId: number, role: Role): Promise<string[]> {
  const r = await trx
    .updateTable('users')
    .set({ roles: sql<string[]>`array_remove(roles, ${role})`, updated_at: sql`now()` })
    .where('id', '=', userId)
    .returning('roles')
    .executeTakeFirstOrThrow();
  return r.roles;
}

/** Users who hold `role` (or any role), by id. */
export async function listRoleHolders(db: Db, role?: Role) {
  const q = db.selectFrom('users').select(['id', 'wallet_address', 'username', 'roles']).orderBy('id');
  return (role ? q.where(sql<boolean>`${role} = ANY(roles)`) : q.where(sql<boolean>`cardinality(roles) > 0`)).execute();
}
