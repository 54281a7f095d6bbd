/** `npm run cli -- apikey ...` against this file's own database: create, tier, rotate, revoke, errors. */
import { expect, it } from 'vitest';
import { useCliEnv } from '../support/cli.js';
import { hashApiKey } from '../../src/identity/api-keys.js';

const t = useCliEnv();

const cli = t.run;

it('creates a key shown once, sets its tier, rotates and revokes it', async () => {
  const created = await cli('apikey', 'create', 'Partner', 'builder');
  expect(created.code).toBe(0);
  const raw = /key \(shown once\): (squid_\S+)/.exec(created.out)![1];
  const id = /created (k_\S+)/.exec(created.out)![1];
  const row = await t.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  expect(row.key_hash).toBe(hashApiKey(raw));
  expect(row.tier).toBe('builder');

  expect((await cli('apikey', 'tier', id, 'enterprise')).out).toContain('is now enterprise');
  const list = await cli('apikey', 'list');
  expect(list.out).toContain(id);
  expect(list.out).toContain('enterprise');
  expect(list.out).not.toContain(raw);

  const rotated = await cli('apikey', 'rotate', id);
  const fresh = /shown once\): (squid_\S+)/.exec(rotated.out)![1];
  expect(fresh).not.toBe(raw);
  expect((await t.db.selectFrom('api_keys').select('key_hash').where('id', '=', id).executeTakeFirstOrThrow()).key_hash).toBe(hashApiKey(fresh));

  expect((await cli('apikey', 'revoke', id)).out).toContain(`revoked ${id}`);
  const again = await cli('apikey', 'revoke', id);
  expect(again.code).toBe(1);
  expect(again.err).toContain('no active key');
});

it('rejects bad tiers and key ids with usage errors', async () => {
  const badTier = await cli('apikey', 'create', 'X', 'platinum');
  expect(badTier.code).toBe(2);
  expect(badTier.err).toContain('unknown tier "platinum"');
  const badId = await cli('apikey', 'tier', 'nope', 'free');
  expect(badId.code).toBe(2);
  expect(badId.err).toContain('is not a key id');
  const unknown = await cli('apikey', 'tier', 'k_AAAAAAAAAAAAAAAA', 'free');
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain('no key');
});
