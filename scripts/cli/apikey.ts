/**
 * `apikey list|create|tier|revoke|rotate`: operators' handling of API keys. Raw keys are printed
 * once (create, rotate) and never stored; only their SHA-256 is.
 */
import { generateApiKey, generateKeyId, maskKey, tiers, type Tier } from '../../src/identity/api-keys.js';
import { insertApiKey, listApiKeys, revokeApiKey, rotateApiKey, setApiKeyTier } from '../../src/identity/api-key-queries.js';
import { CliError, expectArgs, printTable, UsageError, type CommandGroup } from './command.js';

function parseTier(input: string): Tier {
  if (!(tiers as readonly string[]).includes(input)) throw new UsageError(`unknown tier "${input}"; tiers are ${tiers.join(', ')}`);
  return input as Tier;
}

function parseKeyId(input: string): string {
  if (!/^k_[A-Za-z0-9_-]{16}$/.test(input)) throw new UsageError(`"${input}" is not a key id (k_ and 16 characters, as in the dashboard URL)`);
  return input;
}

export const apiKeyCommands: CommandGroup = {
  name: 'apikey',
  summary: 'API keys: list, create, set tier, revoke, rotate',
  notes: [
    'Tiers: free 1,000 requests/day, builder 50,000/day (includes the intel report), enterprise unlimited.',
    'Raw keys are shown once by create and rotate; the service stores only their SHA-256.',
  ],
  commands: [
    {
      name: 'list',
      args: '',
      arity: 0,
      summary: 'every key with tier and status (masked)',
      async run(args, ctx) {
        const rows = await listApiKeys(ctx.db());
        printTable(
          ctx,
          ['id', 'key', 'tier', 'status', 'name', 'created'],
          rows.map((k) => [k.id, maskKey(k.key_first4, k.key_last4), k.tier, k.revoked_at ? 'revoked' : 'active', k.name, k.created_at.toISOString()]),
        );
      },
    },
    {
      name: 'create',
      args: '<name> [tier]',
      summary: 'create a key (default tier free) and print it once',
      async run(args, ctx) {
        if (args.length < 1 || args.length > 2) throw new UsageError('expected <name> [tier]');
        const tier = args[1] ? parseTier(args[1]) : 'free';
        const key = generateApiKey();
        const id = generateKeyId();
        await insertApiKey(ctx.db(), { id, hash: key.hash, first4: key.first4, last4: key.last4, name: args[0], email: null, useCase: null, userId: null, tier });
        ctx.out(`created ${id} (${tier})`);
        ctx.out(`key (shown once): ${key.raw}`);
      },
    },
    {
      name: 'tier',
      args: '<key_id> <free|builder|enterprise>',
      summary: "set a key's tier",
      async run(args, ctx) {
        expectArgs(args, 2, '<key_id> <tier>');
        const row = await setApiKeyTier(ctx.db(), parseKeyId(args[0]), parseTier(args[1]));
        if (!row) throw new CliError(`no key ${args[0]}`);
        ctx.out(`${row.id} is now ${row.tier}`);
      },
    },
    {
      name: 'revoke',
      args: '<key_id>',
      arity: 1,
      summary: 'revoke a key (its requests get 401 api_key_revoked)',
      async run(args, ctx) {
        const row = await revokeApiKey(ctx.db(), parseKeyId(args[0]));
        if (!row) throw new CliError(`no active key ${args[0]}`);
        ctx.out(`revoked ${row.id}`);
      },
    },
    {
      name: 'rotate',
      args: '<key_id>',
      arity: 1,
      summary: 'new secret for the same key id; prints it once',
      async run(args, ctx) {
        const key = generateApiKey();
        const row = await rotateApiKey(ctx.db(), parseKeyId(args[0]), key);
        if (!row) throw new CliError(`no active key ${args[0]}`);
        ctx.out(`rotated ${row.id}; new key (shown once): ${key.raw}`);
      },
    },
  ],
};
