/** A drill file's own database and key prefix, made before its tests and dropped after (one drill per file, so drills run side by side). */
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestEnv, type TestEnv } from './context.js';

/** `stack`: the drill's database, Redis and key prefix, as the drills' `stack` option takes them. */
export function useDrillEnv(): { readonly env: TestEnv; readonly stack: { databaseUrl: string; redisUrl: string; prefix: string }; quiet: () => undefined } {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await env?.cleanup();
  });
  return {
    get env(): TestEnv {
      if (!env) throw new Error('the drill environment is made in beforeAll');
      return env;
    },
    get stack() {
      return { databaseUrl: this.env.databaseUrl, redisUrl: this.env.redisUrl, prefix: this.env.prefix };
    },
    quiet: () => undefined,
  };
}

/** A drill's findings must be none; they are asserted joined, so that a failure prints every one (an array diff elides them). */
export function expectNothingLost(lost: readonly string[]): void {
  expect(lost.join('\n')).toBe('');
}
