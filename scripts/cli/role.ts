/**
 * `role grant|revoke|list`: who is an editor or staff member. Roles live in users.roles (the
 * migration's CHECK allows exactly these); addresses are stored lower-case.
 */
import { isAddress } from 'viem';
import { grantRole, revokeRole } from '../../src/identity/service.js';
import { listRoleHolders } from '../../src/identity/users-queries.js';
import { CliError, printTable, UsageError, type CommandGroup } from './command.js';

const roles = ['editor', 'staff'] as const;
type Role = (typeof roles)[number];

function parseAddress(input: string): string {
  // strict: a mixed-case address must carry a valid EIP-55 checksum (catches a mistyped character).
  if (!isAddress(input, { strict: true })) {
    throw new UsageError(`"${input}" is not an Ethereum address (0x and 40 hex digits; mixed case must be a valid checksum)`);
  }
  return input.toLowerCase();
}

function parseRole(input: string): Role {
  if (!(roles as readonly string[]).includes(input)) throw new UsageError(`unknown role "${input}"; roles are ${roles.join(', ')}`);
  return input as Role;
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
      arity: 2,
      summary: 'give a user a role (creates the user if the address is new)',
      async run(args, ctx) {
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
      arity: 2,
      summary: 'take a role away from a user',
      async run(args, ctx) {
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
        const rows = await listRoleHolders(ctx.db(), role);
        if (!rows.length) return ctx.out(role ? `no user has the ${role} role` : 'no user has a role');
        printTable(
          ctx,
          ['id', 'address', 'username', 'roles'],
          rows.map((u) => [String(u.id), u.wallet_address, u.username ?? '-', u.roles.join(',')]),
        );
      },
    },
  ],
};
