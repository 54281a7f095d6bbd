/** Run admin-CLI invocations in-process against a test environment, capturing their output. */
import { afterAll, beforeAll } from 'vitest';
import { runCli } from '../../scripts/cli/index.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { createTestEnv, type TestEnv } from './context.js';

export async function runCliCaptured(env: Record<string, string>, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * One test file's CLI environment: its own database (createTestEnv) and a connection to look into
 * it, made in beforeAll and released in afterAll. `run(...argv)` is one captured invocation.
 */
export function useCliEnv() {
  const t = {
    env: undefined as unknown as TestEnv,
    db: undefined as unknown as Db,
    run: (...argv: string[]) => runCliCaptured(t.env.env, argv),
  };
  beforeAll(async () => {
    t.env = await createTestEnv();
    t.db = createDb(t.env.databaseUrl, { max: 2 });
  });
  afterAll(async () => {
    await t.db?.destroy();
    await t.env?.cleanup();
  });
  return t;
}
