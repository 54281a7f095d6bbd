/**
 * The admin CLI run as its own process (`npm run cli` runs scripts/cli.ts the same way), against
 * this file's own database. A launcher-tier test (test/tiers.ts); the commands themselves are
 * tested in-process in test/integration/cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startProc } from '../../scripts/lib/harness.js';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.cleanup();
});

describe('cli process', () => {
  it('runs as its own process with the exit code of the command', async () => {
    const ok = startProc('cli', 'scripts/cli.ts', env.env, ['role', 'grant', '0x' + 'd'.repeat(40), 'staff']);
    const bad = startProc('cli', 'scripts/cli.ts', env.env, ['role', 'grant', 'nope', 'staff']);
    expect(await ok.exited).toEqual({ code: 0, signal: null });
    expect(ok.output()).toContain(`granted staff to 0x${'d'.repeat(40)}`);
    expect(await bad.exited).toEqual({ code: 2, signal: null });
    expect(bad.output()).toContain('is not an Ethereum address');
    // Two CLI processes load the TypeScript sources through tsx side by side: on a loaded 2-core
    // machine that alone can take most of the default 30 s.
  }, 60_000);
});
