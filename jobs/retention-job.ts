/**
 * A retention job over one table with the shared retention knobs: rows older than `days(config)`
 * days deleted by `prune` in batches of RETENTION_BATCH, RETENTION_PAUSE_MS apart, at most
 * MAX_BATCHES a run (src/platform/prune.ts). payments-prune and telegram-updates-prune are this.
 */
import type { Config } from '../src/platform/config.js';
import type { Db } from '../src/platform/db.js';
import { pruneOlderThan } from '../src/platform/prune.js';
import { defineSweep } from './define.js';
import { MAX_BATCHES } from './wire-prune.js';

export function retentionJob(name: string, days: (config: Config) => number, prune: (db: Db, cutoff: Date, batch: number) => Promise<number>) {
  return defineSweep({
    name,
    async run(deps) {
      const c = deps.config;
      return pruneOlderThan(days(c), (cutoff, batch) => prune(deps.db, cutoff, batch), {
        batch: c.RETENTION_BATCH,
        pauseMs: c.RETENTION_PAUSE_MS,
        maxBatches: MAX_BATCHES,
      });
    },
  });
}
