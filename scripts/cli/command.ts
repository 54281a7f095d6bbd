/**
 * The shape of an admin CLI command. Commands come in groups (`role`, later `apikey`, `wire`,
 * `rewards`); each group is one file exporting a CommandGroup, listed in scripts/cli/index.ts.
 */
import type { Config } from '../../src/platform/config.js';
import type { Db } from '../../src/platform/db.js';

/** A failure to report as `error: <message>` with a non-zero exit (1 unless told otherwise). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Wrong arguments: exit 2, like other command-line tools. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

export interface CliContext {
  /** The service's database (DATABASE_URL, validated by loadConfig), opened on first use. */
  db(): Db;
  /** The validated configuration (the same environment as db()). */
  config(): Config;
  out(line: string): void;
}

interface Command {
  name: string;
  /** Argument synopsis for help, e.g. `<address> <role>`. */
  args: string;
  summary: string;
  /** Runs without the service's database and Redis (no running stack needed). */
  offline?: boolean;
  /** Takes exactly this many arguments, as `args` names them: checked before `run` (a usage error otherwise). */
  arity?: number;
  run(args: string[], ctx: CliContext): Promise<void>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  /** Extra lines for `help <group>`: rules an operator should know. */
  notes?: string[];
  commands: Command[];
}

/** A timestamp in a CLI table: ISO 8601 UTC to the second; '-' for none. */
export function cliTime(d: Date | null): string {
  return d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

/** Exactly `n` arguments, or a usage error naming the expected ones. */
export function expectArgs(args: string[], n: number, usage: string): void {
  if (args.length !== n) throw new UsageError(`expected ${usage}, got ${args.length ? args.map((a) => JSON.stringify(a)).join(' ') : 'nothing'}`);
}

/** A command's declared arity (Command.arity), checked as expectArgs does. */
export function checkArity(command: Command, args: string[]): void {
  if (command.arity !== undefined) expectArgs(args, command.arity, command.args || 'no arguments');
}

/** Prints a table (formatTable), a line at a time. */
export function printTable(ctx: Pick<CliContext, 'out'>, header: string[], rows: string[][]): void {
  for (const line of formatTable(header, rows)) ctx.out(line);
}

/** Left-aligned columns with a header row. */
export function formatTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
