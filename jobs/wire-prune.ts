/**
 * wire-prune: hourly retention of the wire. Wire items ingested more than WIRE_RETENTION_DAYS ago
 * (and their receipts) are deleted in batches of RETENTION_BATCH, each its own short transaction,
 * leaving a tombstone (sha256 of the normalised URL + source) so a feed still listing the item does
 * not bring it back (src/platform/prune.ts). Tombstones older than WIRE_TOMBSTONE_RETENTION_DAYS go too.
 */
import { pruneWireItems, pruneWireTombstones } from '../src/ops/index.js';
import { inBatches } from '../src/platform/prune.js';
import { defineSweep } from './define.js';

/** One run stops after this many batches (the next hourly run continues). */
export const MAX_BATCHES = 2000;

export const job = defineSweep({
  name: 'wire-prune',
  async run(deps) {
    const c = deps.config;
    const cutoff = new Date(Date.now() - c.WIRE_RETENTION_DAYS * 86_400_000);
    const tombCutoff = new Date(Date.now() - c.WIRE_TOMBSTONE_RETENTION_DAYS * 86_400_000);
    const opts = { batch: c.RETENTION_BATCH, pauseMs: c.RETENTION_PAUSE_MS, maxBatches: MAX_BATCHES };
    const items = await inBatches(() => pruneWireItems(deps.db, cutoff, c.RETENTION_BATCH), opts);
    const tombstones = await inBatches(() => pruneWireTombstones(deps.db, tombCutoff, c.RETENTION_BATCH), opts);
    return { items, tombstones, cutoff: cutoff.toISOString() };
  },
});
