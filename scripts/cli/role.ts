/**
 * `role grant|revoke|list`: who is an editor or staff member. Roles live in users.roles (the
 * migration's CHECK allows exactly these); addresses are stored lower-case.
 */
import { sql } from 'kysely';
import { isAddress } from 'viem';
import type { Db } from '../../src/db.js';
import { CliError, expectArgs, formatTable, UsageError, type CommandGroup } from './command.js';

export const roles = ['editor', 'staff'] as const;
export type Role = (typeof roles)[number];

export function parseAddress(input: string): string {
  // strict: a mixed-case address must carry a valid EIP-55 checksum (catches a mistyped character).
  if (!isAddress(input, { strict: true })) {
    throw new UsageError(`"${input}" is not an Ethereum address (0x and 40 hex digits; mixed case must be a valid checksum)`);
  }
  return input.toLowerCase();
}

export function parseRole(input: string): Role {
  if (!(roles as readonly string[]).includes(input)) throw new UsageError(`unknown role "${input}"; roles are ${roles.join(', ')}`);
  return input as Role;
}

export interface RoleChange {
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

const listRoles = (r: string[]) => (r.length ? r.join(', ') : 'none');

export const roleCommands: CommandGroup = {
  name: 'role',
  summary: 'grant, revoke and list editor and staff roles',
  notes: [
    `Roles: ${roles.join(', ')}. Addresses are matched case-insensitively and stored lower-case.`,
    'Granting a role to an address that has no user yet creates the user (no username or profile);',
    'the wallet signs in to that account later. Revoking from an unknown address is an error.',
  ],
  commands: [
    {
      name: 'grant',
      args: '<address> editor|staff',
      summary: 'give a user a role (creates the user if the address is new)',
      async run(args, ctx) {
        expectArgs(args, 2, '<address> editor|staff');
        const address = parseAddress(args[0]);
        const role = parseRole(args[1]);
        const r = await grantRole(ctx.db(), address, role);
        if (r.created) ctx.out(`created user ${r.userId} for ${address} (no user had this address)`);
        ctx.out(
          r.changed
            ? `granted ${role} to ${address} (user ${r.userId}); roles now: ${listRoles(r.roles)}`
            : `${address} (user ${r.userId}) already has ${role}; roles: ${listRoles(r.roles)}`,
        );
      },
    },
    {
      name: 'revoke',
      args: '<address> editor|staff',
      summary: 'take a role away from a user',
      async run(args, ctx) {
        expectArgs(args, 2, '<address> editor|staff');
        const address = parseAddress(args[0]);
        const role = parseRole(args[1]);
        const r = await revokeRole(ctx.db(), address, role);
        if (!r) throw new CliError(`no user with wallet address ${address}`);
        ctx.out(
          r.changed
            ? `revoked ${role} from ${address} (user ${r.userId}); roles now: ${listRoles(r.roles)}`
            : `${address} (user ${r.userId}) did not have ${role}; roles: ${listRoles(r.roles)}`,
        );
      },
    },
    {
      name: 'list',
      args: '[editor|staff]',
      summary: 'list users who hold a role (or the given role)',
      async run(args, ctx) {
        if (args.length > 1) throw new UsageError('expected at most one argument: [editor|staff]');
        const role = args[0] === undefined ? undefined : parseRole(args[0]);
        let q = ctx.db().selectFrom('users').select(['id', 'wallet_address', 'username', 'roles']).orderBy('id');
        q = role ? q.where(sql<boolean>`${role} = ANY(roles)`) : q.where(sql<boolean>`cardinality(roles) > 0`);
        const rows = await q.execute();
        if (!rows.length) return ctx.out(role ? `no user has the ${role} role` : 'no user has a role');
        for (const line of formatTable(
          ['id', 'address', 'username', 'roles'],
          rows.map((u) => [String(u.id), u.wallet_address, u.username ?? '-', u.roles.join(',')]),
        )) {
          ctx.out(line);
        }
      },
    },
  ],
};
