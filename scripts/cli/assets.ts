/**
 * `assets tag|add|alias|ambiguous|word`: the asset registry and the tagger.
 * `tag --input FILE` tags JSON lines ({"id": any, "title": string, "summary"?: string, "url"?: string})
 * with the production tagger and the database's registry and prints one line per input item, in
 * input order: {"id": <the input id>, "assets": ["<canonical id>", ...]} (by salience).
 */
import { readFileSync } from 'node:fs';
import { ASSET_ID_PATTERN, addAmbiguousWord, addAsset, sharedRegistry, tagText, updateAsset } from '../../src/assets/index.js';
import { CliError, UsageError, type CommandGroup } from './command.js';

function parseFlags(args: string[]): { positional: string[]; flags: [string, string][] } {
  const positional: string[] = [];
  const flags: [string, string][] = [];
  for (const a of args) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (m) flags.push([m[1], m[2] ?? 'true']);
    else positional.push(a);
  }
  return { positional, flags };
}

const flagValues = (flags: [string, string][], name: string) => flags.filter(([k]) => k === name).map(([, v]) => v);

function assetIdArg(v: string | undefined): string {
  if (!v || !ASSET_ID_PATTERN.test(v) || v.length > 100) throw new UsageError(`"${v ?? ''}" is not an asset id (lower-case letters, digits and single hyphens)`);
  return v;
}

interface InputLine {
  id: unknown;
  title: string;
  summary?: string;
}

function parseLine(line: string, n: number): InputLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new CliError(`line ${n}: not JSON`);
  }
  const o = v as Partial<InputLine> | null;
  if (o === null || typeof o !== 'object' || !('id' in o)) throw new CliError(`line ${n}: needs an "id"`);
  if (typeof o.title !== 'string') throw new CliError(`line ${n}: "title" must be a string`);
  if (o.summary !== undefined && o.summary !== null && typeof o.summary !== 'string') throw new CliError(`line ${n}: "summary" must be a string`);
  return { id: o.id, title: o.title, summary: o.summary ?? undefined };
}

export const assetCommands: CommandGroup = {
  name: 'assets',
  summary: 'the asset registry and the tagger',
  notes: [
    'tag: JSON lines in, {"id","assets"} lines out in input order (production tagger, registry from the database).',
    'CAIP-19 deployments: eip155:<chain>/erc20:0x<40 hex>, solana:<genesis>/token:<mint>.',
  ],
  commands: [
    {
      name: 'tag',
      args: '--input=FILE',
      summary: 'tag the headlines of a JSON-lines file',
      async run(args, ctx) {
        const { flags } = parseFlags(args);
        const file = flagValues(flags, 'input')[0];
        if (!file || file === 'true') throw new UsageError('assets tag needs --input=FILE');
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
        }
        const items = text.split('\n').flatMap((l, i) => (l.trim() ? [parseLine(l, i + 1)] : []));
        const tagger = await sharedRegistry.tagger(ctx.db());
        for (const item of items) ctx.out(JSON.stringify({ id: item.id, assets: tagText(tagger, { title: item.title, body: item.summary }).map((t) => t.id) }));
      },
    },
    {
      name: 'add',
      args: '<id> <symbol> <name> [--alias=A ...] [--deployment=CAIP19 ...] [--ambiguous]',
      summary: 'add an asset (source staff)',
      async run(args, ctx) {
        const { positional, flags } = parseFlags(args);
        if (positional.length !== 3) throw new UsageError('assets add needs <id> <symbol> <name>');
        const deployments = flagValues(flags, 'deployment');
        for (const d of deployments)
          if (!/^(eip155:\d{1,10}\/erc20:0x[0-9a-fA-F]{40}|solana:[1-9A-HJ-NP-Za-km-z]{32}\/token:[1-9A-HJ-NP-Za-km-z]{32,44})$/.test(d))
            throw new UsageError(`"${d}" is not a CAIP-19 id`);
        const id = assetIdArg(positional[0]);
        await addAsset(ctx.db(), sharedRegistry, {
          id,
          symbol: positional[1],
          name: positional[2],
          aliases: flagValues(flags, 'alias'),
          ambiguous: flagValues(flags, 'ambiguous').includes('true'),
          deployments: deployments.map((d) => (d.startsWith('eip155:') ? d.toLowerCase() : d)),
        });
        ctx.out(`added ${id}`);
      },
    },
    {
      name: 'alias',
      args: '<id> <alias> [alias ...]',
      summary: 'add aliases to an asset',
      async run(args, ctx) {
        if (args.length < 2) throw new UsageError('assets alias needs <id> <alias>');
        const id = assetIdArg(args[0]);
        await updateAsset(ctx.db(), sharedRegistry, id, { aliases: args.slice(1) });
        ctx.out(`${id}: added ${args.length - 1} alias(es)`);
      },
    },
    {
      name: 'ambiguous',
      args: '<id> on|off',
      summary: "mark an asset's ticker as needing context (or not)",
      async run(args, ctx) {
        if (args.length !== 2 || !['on', 'off'].includes(args[1])) throw new UsageError('assets ambiguous needs <id> on|off');
        const id = assetIdArg(args[0]);
        await updateAsset(ctx.db(), sharedRegistry, id, { ambiguous: args[1] === 'on' });
        ctx.out(`${id}: ambiguous ${args[1]}`);
      },
    },
    {
      name: 'word',
      args: '<word>',
      summary: 'add an ambiguous word (a ticker or name that needs context)',
      async run(args, ctx) {
        if (args.length !== 1 || !/^[\p{L}\p{N}]{1,40}$/u.test(args[0])) throw new UsageError('assets word needs one word of letters and digits');
        await addAmbiguousWord(ctx.db(), sharedRegistry, args[0]);
        ctx.out(`ambiguous word: ${args[0].toLowerCase()}`);
      },
    },
  ],
};
