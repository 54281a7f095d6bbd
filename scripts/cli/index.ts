/**
 * The admin CLI's command registry and dispatcher: `<group> <command> [args...]`, `help`,
 * `help <group>`. Each group is one file exporting a CommandGroup, listed here by name.
 *
 * A group's file is imported only when that group runs (or for the general help): some groups
 * reach the job registry and with it every feature, which takes seconds to load, and a command
 * such as `role list` should answer (or say that no stack is running) without paying for them.
 */
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { checkArity, CliError, UsageError, type CliContext, type CommandGroup } from './command.js';
import { NoStackError, withDevStack } from '../lib/dev-stack.js';

/** The groups in help order: name -> its file, loaded on first use. */
const groupLoaders: [string, () => Promise<CommandGroup>][] = [
  ['role', async () => (await import('./role.js')).roleCommands],
  ['apikey', async () => (await import('./apikey.js')).apiKeyCommands],
  ['rewards', async () => (await import('./rewards.js')).rewardCommands],
  ['agent', async () => (await import('./agent-chat.js')).agentCommands],
  ['telegram', async () => (await import('./agent-chat.js')).telegramCommands],
  ['wire', async () => (await import('./wire.js')).wireCommands],
  ['webhooks', async () => (await import('./webhooks.js')).webhookCommands],
  ['stories', async () => (await import('./stories.js')).storyCommands],
  ['assets', async () => (await import('./assets.js')).assetCommands],
];

async function loadGroup(name: string): Promise<CommandGroup | undefined> {
  const loader = groupLoaders.find(([n]) => n === name);
  if (!loader) return undefined;
  const group = await loader[1]();
  if (group.name !== name) throw new Error(`scripts/cli/index.ts lists group "${name}" for a file whose group is "${group.name}"`);
  return group;
}

const allGroups = async (): Promise<CommandGroup[]> => (await Promise.all(groupLoaders.map(([name]) => loadGroup(name)))).filter((g) => g !== undefined);

const PROG = 'npm run cli --';

interface CliIo {
  /** Tests pass their own; unset means the process environment (read by loadConfig). */
  env?: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

function generalHelp(commandGroups: CommandGroup[]): string[] {
  const lines = [`usage: ${PROG} <command> [arguments]`, '', 'commands:'];
  const rows = commandGroups.flatMap((g) => g.commands.map((c) => [`${g.name} ${c.name} ${c.args}`.trim(), c.summary]));
  rows.push(['help [group]', "this help, or a group's rules"]);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [synopsis, summary] of rows) lines.push(`  ${synopsis.padEnd(width)}  ${summary}`);
  lines.push(
    '',
    'The CLI uses the same DATABASE_URL and REDIS_URL as the service (see docs/configuration.md); when they are',
    'unset it uses the servers of the `npm start` running from this directory (DATA_DIR/stack.json).',
  );
  return lines;
}

function groupHelp(g: CommandGroup): string[] {
  const width = Math.max(...g.commands.map((c) => `${g.name} ${c.name} ${c.args}`.trim().length));
  return [
    `${g.name}: ${g.summary}`,
    '',
    ...g.commands.map((c) => `  ${PROG} ${`${g.name} ${c.name} ${c.args}`.trim().padEnd(width)}  ${c.summary}`),
    ...(g.notes?.length ? ['', ...g.notes] : []),
  ];
}

const isHelp = (a: string | undefined) => a === 'help' || a === '--help' || a === '-h';

/** Run one CLI invocation; returns the exit code (0 ok, 1 failure, 2 usage, 78 configuration). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let db: Db | undefined;
  // The environment the commands see: io.env (or process.env), with DATABASE_URL / REDIS_URL taken
  // from a running `npm start` when unset (resolved just before a command runs; help needs none).
  let env: Record<string, string | undefined> = io.env ?? process.env;
  const ctx: CliContext = {
    db() {
      const config = loadConfig(env);
      db ??= createDb(config.DATABASE_URL, { max: 1, applicationName: 'cli', prepared: config.DB_PREPARED_STATEMENTS });
      return db;
    },
    config: () => loadConfig(env),
    out: io.out,
  };
  const [groupName, commandName, ...args] = argv;
  try {
    if (groupName === undefined) {
      generalHelp(await allGroups()).forEach(io.err);
      return 2;
    }
    if (isHelp(groupName)) {
      if (commandName === undefined) {
        generalHelp(await allGroups()).forEach(io.out);
        return 0;
      }
      const g = await loadGroup(commandName);
      if (!g) throw new UsageError(`unknown command group "${commandName}"; groups: ${groupLoaders.map(([n]) => n).join(', ')}`);
      groupHelp(g).forEach(io.out);
      return 0;
    }
    const group = await loadGroup(groupName);
    if (!group) throw new UsageError(`unknown command "${groupName}"; run \`${PROG} help\``);
    if (isHelp(commandName) || isHelp(args[0])) {
      groupHelp(group).forEach(io.out);
      return 0;
    }
    const command = group.commands.find((c) => c.name === commandName);
    if (!command) {
      const known = group.commands.map((c) => c.name).join(', ');
      throw new UsageError(commandName === undefined ? `${groupName} needs a command: ${known}` : `unknown command "${groupName} ${commandName}"; ${groupName} commands: ${known}`);
    }
    if (!command.offline) {
      const stack = await withDevStack(env);
      env = stack.env;
      if (stack.note) io.err(stack.note);
    }
    checkArity(command, args);
    await command.run(args, ctx);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof NoStackError) {
      err.message.split('\n').forEach((l, i) => io.err(i === 0 ? `error: ${l}` : l));
      return 78;
    }
    if (err instanceof ConfigError) {
      io.err(`error: ${err.message}`);
      return 78;
    }
    const e = err as Error & { code?: string };
    // undefined_table: the database exists but has not been migrated.
    const hint = e.code === '42P01' ? ' (is the database migrated? run `npm run migrate`)' : '';
    io.err(`error: ${e.message}${hint}`);
    return 1;
  } finally {
    await db?.destroy();
  }
}
