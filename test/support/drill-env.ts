/** A drill file's own database and key prefix, made before its tests and dropped after (one drill per file, so drills run side by side). */
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TestEnv } from './context.js';

export function useDrillEnv(): { readonly env: TestEnv; quiet: () => undefined } {
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
    quiet: () => undefined,
  };
}
