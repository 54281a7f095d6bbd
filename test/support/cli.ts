/** Run one admin-CLI invocation in-process against a test environment, capturing its output. */
import { runCli } from '../../scripts/cli/index.js';

export async function runCliCaptured(env: Record<string, string>, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
