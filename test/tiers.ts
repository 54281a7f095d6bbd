/**
 * Test tiers. `npm test` is every tier. The slow tiers can be run alone
 * (`npm run test:slow`, `test:fuzz`, `test:drills`, `test:browser`, `test:launcher`, `test:matrix`), and `npm run test:quick`
 * runs everything else (unit tests and the fast integration tests) for the inner loop.
 *
 * A new test file is quick unless it is listed here: put it in a slow tier when it takes more than a
 * few seconds, starts the whole stack, drives a browser or runs a fault drill.
 */
const slowTiers = {
  /**
   * Integration files that take more than about 5 s on their own: a TypeScript compile of a generated
   * client, real waits for a payment authorization to expire, a job queue's fixed retry backoffs.
   */
  slow: ['test/integration/openapi-client.test.ts', 'test/integration/x402-settlement-retry.test.ts', 'test/integration/wire-ingest.test.ts'],
  /** Property-based and random-input tests (they print their seed and path on failure). */
  fuzz: ['test/integration/*fuzz*.test.ts'],
  /** Fault drills: processes killed, Redis and PostgreSQL restarted. */
  drills: ['test/integration/drill-*.test.ts', 'test/integration/webhook-drill.test.ts', 'test/integration/resilience-*.test.ts', 'test/integration/agent-chat-expiry.test.ts'],
  /** Headless Chromium. */
  browser: ['test/e2e/*browser*.test.ts', 'test/e2e/editor-console*.test.ts'],
  /** The launcher and the Procfile's processes, started as a user or the platform would. */
  launcher: [
    'test/e2e/launcher.test.ts',
    'test/e2e/procfile*.test.ts',
    'test/e2e/cli-finds-stack.test.ts',
    'test/e2e/cli-process.test.ts',
    'test/e2e/release.test.ts',
    'test/e2e/media-two-web.test.ts',
    'test/e2e/quota-two-web.test.ts',
  ],
} as const;

/**
 * `matrix`: every tier but fuzz and drills, what CI runs on the newer Node versions (the full suite runs
 * on the oldest supported one; .ci/run). Fuzz and drill tests exercise this code's handling of random
 * input and of killed, restarted and signalled processes, which does not vary with the Node version,
 * and they are about half of the suite's time.
 */
const notInMatrix = [...slowTiers.fuzz, ...slowTiers.drills];

export type Tier = keyof typeof slowTiers | 'quick' | 'matrix' | 'all';

/** include / exclude globs of a tier. */
export function tierGlobs(tier: Tier): { include: string[]; exclude: string[] } {
  const all = ['test/**/*.test.ts'];
  if (tier === 'all') return { include: all, exclude: [] };
  if (tier === 'quick') return { include: all, exclude: Object.values(slowTiers).flat() };
  if (tier === 'matrix') return { include: all, exclude: notInMatrix };
  return { include: [...slowTiers[tier]], exclude: [] };
}
