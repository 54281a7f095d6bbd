import { defineConfig } from 'vitest/config';
import { tierGlobs, type Tier } from './test/tiers.js';

// TEST_TIER picks a tier (test/tiers.ts); unset: the full suite.
const tier = tierGlobs((process.env.TEST_TIER as Tier | undefined) ?? 'all');

export default defineConfig({
  test: {
    include: tier.include,
    exclude: [...tier.exclude, '**/node_modules/**'],
    // PostgreSQL, Redis, the migrated template and the OpenAPI document (openapi-setup.ts), built at once.
    globalSetup: ['test/support/global-setup.ts'],
    // Checks every response the service sends to a test against the OpenAPI document.
    setupFiles: ['test/support/openapi-hook.ts'],
    pool: 'forks',
    // A worker runs its files in one module graph (imported once, not once per file: the full suite's
    // summed import time fell from 618 s to 49 s). Files must restore any global state they change.
    isolate: false,
    // Integration tests mostly wait on Postgres, Redis and child processes: three forks keep two
    // cores busy (measured: 315 s against 364 s with the default on a loaded 2-core machine).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
