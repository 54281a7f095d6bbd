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

interface RoleChange {
  userId: number;
  created: boolean;
  changed: boolean;
  roles: string[];
}

/** Grant a role; an address with no user yet gets a user row (it signs in to that account later). */
export async function grantRole(db: Db, address: string, role: Role): Promise<RoleChange> {
  return db.transaction().execute(async (trx) => {
    const find = () => trx.selectFrom('users').select(['id', 'roles']).where('wallet_address', '=', address).forUpdate().executeTakeFirst();
    let user = await find();
    let created = false;
    if (!user) {
      // ON CONFLICT: a user signing in at this moment may create the row first; then use theirs.
      user = await trx
        .insertInto('users')
        .values({ wallet_address: address })
        .onConflict((oc) => oc.column('wallet_address').doNothing())
        .returning(['id', 'roles'])
        .executeTakeFirst();
      created = !!user;
      user ??= await find();
      if (!user) throw new Error(`user ${address} vanished while granting a role`);
    }
    if (user.roles.includes(role)) return { userId: user.id, created, changed: false, roles: user.roles };
    const updated = await trx
      .updateTable('users')
      .set({ roles: sql<string[]>`array_append(roles, ${role})`, updated_at: sql`now()` })
      .where('id', '=', user.id)
      .returning('roles')
      .executeTakeFirstOrThrow();
    return { userId: user.id, created, changed: true, roles: updated.roles };
  });
}

/** Revoke a role; null when no user has that address. */
export async function revokeRole(db: Db, address: string, role: Role): Promise<RoleChange | null> {
  return db.transaction().execute(async (trx) => {
    const user = await trx.selectFrom('users').select(['id', 'roles']).where('wallet_address', '=', address).forUpdate().executeTakeFirst();
    if (!user) return null;
    if (!user.roles.includes(role)) return { userId: user.id, created: false, changed: false, roles: user.roles };
    const updated = await trx
      .updateTable('users')
      .set({ roles: sql<string[]>`array_remove(roles, ${role})`, updated_at: sql`now()` })
      .where('id', '=', user.id)
      .returning('roles')
      .executeTakeFirstOrThrow();
    return { userId: user.id, created: false, changed: true, roles: updated.roles };
  });
}

/** Users who hold `role` (or any role), by id. */
export async function listRoleHolders(db: Db, role?: Role) {
  const q = db.selectFrom('users').select(['id', 'wallet_address', 'username', 'roles']).orderBy('id');
  return (role ? q.where(sql<boolean>`${role} = ANY(roles)`) : q.where(sql<boolean>`cardinality(roles) > 0`)).execute();
}
