/** `npm run cli -- <command>`: the operators' admin CLI. Commands live in scripts/cli/. */
import { runCli } from './cli/index.js';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
