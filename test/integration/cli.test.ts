/**
 * The admin CLI against this file's own database: the role commands, their errors and exit codes,
 * and (test/e2e/cli-process.test.ts, launcher tier) one run as a real process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../scripts/cli/index.js';
import { useCliEnv } from '../support/cli.js';

const t = useCliEnv();

const cli = t.run;

const rolesOf = async (address: string) => (await t.db.selectFrom('users').select('roles').where('wallet_address', '=', address).executeTakeFirst())?.roles;

const ALICE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'; // checksummed
const alice = ALICE.toLowerCase();

describe('role commands', () => {
  it('grant creates the user for a new address, stores it lower-case, and is idempotent', async () => {
    const first = await cli('role', 'grant', ALICE, 'editor');
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toContain(`created user`);
    expect(first.out).toContain(`granted editor to ${alice}`);
    expect(await rolesOf(alice)).toEqual(['editor']);

    const again = await cli('role', 'grant', alice, 'editor');
    expect(again.code).toBe(0);
    expect(again.out).toContain('already has editor');
    expect(await rolesOf(alice)).toEqual(['editor']);

    expect((await cli('role', 'grant', alice, 'staff')).code).toBe(0);
    expect(await rolesOf(alice)).toEqual(['editor', 'staff']);
    expect(await t.db.selectFrom('users').select('id').where('wallet_address', '=', alice).execute()).toHaveLength(1);
  });

  it('list shows role holders, optionally by role', async () => {
    await t.db
      .insertInto('users')
      .values({ wallet_address: '0x' + 'b'.repeat(40), username: 'nobody' })
      .execute();
    const all = await cli('role', 'list');
    expect(all.code).toBe(0);
    expect(all.out).toMatch(new RegExp(`${alice} +- +editor,staff`));
    expect(all.out).not.toContain('nobody');
    expect((await cli('role', 'list', 'staff')).out).toContain(alice);
  });

  it('revoke removes one role and reports a role the user did not have', async () => {
    const r = await cli('role', 'revoke', alice, 'staff');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`revoked staff from ${alice}`);
    expect(await rolesOf(alice)).toEqual(['editor']);
    const again = await cli('role', 'revoke', alice, 'staff');
    expect(again.code).toBe(0);
    expect(again.out).toContain('did not have staff');
  });

  it('fails clearly: unknown user (1), bad address, bad checksum, unknown role, missing arguments (2)', async () => {
    const unknown = await cli('role', 'revoke', '0x' + 'c'.repeat(40), 'editor');
    expect(unknown).toMatchObject({ code: 1, out: '' });
    expect(unknown.err).toBe(`error: no user with wallet address 0x${'c'.repeat(40)}`);

    const short = await cli('role', 'grant', '0x1234', 'editor');
    expect(short.code).toBe(2);
    expect(short.err).toContain('"0x1234" is not an Ethereum address');

    const badChecksum = await cli('role', 'grant', ALICE.replace('C51', 'c51'), 'editor');
    expect(badChecksum.code).toBe(2);
    expect(badChecksum.err).toContain('checksum');

    const role = await cli('role', 'grant', alice, 'admin');
    expect(role.code).toBe(2);
    expect(role.err).toBe('error: unknown role "admin"; roles are editor, staff');

    expect((await cli('role', 'grant', alice)).code).toBe(2);
    expect((await cli('role', 'bogus')).code).toBe(2);
    expect((await cli('bogus')).code).toBe(2);
    expect(await rolesOf(alice)).toEqual(['editor']);
  });

  it('help lists every command and needs no database', async () => {
    const h = await runCli(['help'], { env: {}, out: () => undefined, err: () => undefined });
    expect(h).toBe(0);
    const text: string[] = [];
    await runCli(['help', 'role'], { env: {}, out: (l) => text.push(l), err: () => undefined });
    expect(text.join('\n')).toMatch(/role grant <address> editor\|staff/);
    expect(text.join('\n')).toContain('creates the user');
  });

  it('without DATABASE_URL and no `npm start` running exits 78 naming the variable and how to start a stack', async () => {
    const err: string[] = [];
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'squid-cli-nostack-'));
    try {
      const code = await runCli(['role', 'list'], { env: { DATA_DIR: dataDir }, out: () => undefined, err: (l) => err.push(l) });
      expect(code).toBe(78);
      expect(err.join('\n')).toContain('error: DATABASE_URL and REDIS_URL are not set, and no dev stack (`npm start`) is running');
      expect(err.join('\n')).toContain('Start one in another terminal with `npm start`');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('in production a missing DATABASE_URL stays a configuration error (no dev stack is looked for)', async () => {
    const err: string[] = [];
    const code = await runCli(['role', 'list'], { env: { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, out: () => undefined, err: (l) => err.push(l) });
    expect(code).toBe(78);
    expect(err.join('\n')).toContain('DATABASE_URL: is required');
  });
});
