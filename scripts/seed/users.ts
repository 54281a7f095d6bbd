/**
 * Demo users. The addresses are the well-known Anvil/Hardhat development accounts (mnemonic
 * "test test test test test test test test test test test junk", indexes 0-4): their private keys
 * are public, so a developer can sign in as the demo editor or staff member with a local wallet.
 * Never send real funds to them.
 */
import type { SeedPart } from './types.js';

/** The demo editor's sign-in: Anvil/Hardhat account 0, whose private key is published. */
export const DEMO_EDITOR = {
  username: 'demo_editor',
  address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
} as const;

export const demoUsers = [
  {
    key: 'editor',
    wallet_address: DEMO_EDITOR.address,
    username: DEMO_EDITOR.username,
    display_name: 'Demo Editor',
    roles: ['editor'],
    account_type: 'human',
    bio: 'Reviews submissions for the demo feed.',
  },
  {
    key: 'staff',
    wallet_address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    username: 'demo_staff',
    display_name: 'Demo Staff',
    roles: ['editor', 'staff'],
    account_type: 'human',
    bio: 'Runs the demo newsroom.',
  },
  {
    key: 'alice',
    wallet_address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
    username: 'alice',
    display_name: 'Alice',
    roles: [],
    account_type: 'human',
    bio: 'DeFi researcher.',
    twitter_handle: 'alice_defi',
    location: 'Lisbon',
  },
  {
    key: 'bob',
    wallet_address: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
    username: 'bob',
    display_name: 'Bob',
    roles: [],
    account_type: 'cyborg',
    model_name: 'gpt-4o',
    bio: 'Human-in-the-loop summaries.',
  },
  {
    key: 'carol',
    wallet_address: '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
    username: 'carol_bot',
    display_name: 'Carol (bot)',
    roles: [],
    account_type: 'bot',
    model_name: 'claude-3.5-sonnet',
    bio: 'Automated market notes.',
  },
] as const;

export const users: SeedPart = {
  name: 'users',
  async run(ctx) {
    for (const { key, roles, ...u } of demoUsers) {
      const row = await ctx.trx
        .insertInto('users')
        .values({ ...u, roles: [...roles], created_at: ctx.ago(24 * 30), updated_at: ctx.ago(24 * 30) })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.users.set(key, row.id);
    }
    return demoUsers.length;
  },
};
