/**
 * Retention: batch deletes (the deletes are in src/ops/retention-queries.ts) of expired rows, one small transaction per batch, oldest first, each
 * batch found through an index on the time column (so a batch costs the same on a table of ten
 * rows or ten million). Rows locked by someone else are skipped (SKIP LOCKED), so retention never
 * waits on the hot path; a skipped row goes in a later batch.
 *
 * What each table leaves behind:
 *  - wire_items (and, by ON DELETE CASCADE, their wire_receipts): a tombstone per item, the sha256
 *    of its normalised URL and the source that first carried it. Ingestion skips tombstoned URLs,
 *    so a feed that still lists the item neither re-ingests nor re-announces it.
 *  - payments (settled or failed only): a tombstone of the replay key, which a trigger on payments
 *    checks, so the authorization or transaction can never pay again.
 *  - telegram_updates: nothing (Telegram stops redelivering an update after 24 hours).
 */

interface BatchRun {
  deleted: number;
  batches: number;
  /** True when the run stopped at maxBatches with more left (the next run continues). */
  more: boolean;
}

/**
 * Call `step` (one batch, its own transaction) until a batch comes back short, pausing `pauseMs`
 * between batches so the hot path gets the database in between; at most `maxBatches` per run.
 */
export async function inBatches(step: () => Promise<number>, opts: { batch: number; pauseMs: number; maxBatches: number }): Promise<BatchRun> {
  let deleted = 0;
  for (let i = 0; i < opts.maxBatches; i++) {
    const n = await step();
    deleted += n;
    if (n < opts.batch) return { deleted, batches: i + 1, more: false };
    if (opts.pauseMs > 0) await new Promise((r) => setTimeout(r, opts.pauseMs));
  }
  return { deleted, batches: opts.maxBatches, more: true };
}

/**
 * One retention run: the rows `step` finds older than `days` days, deleted in batches (inBatches).
 * Every retention job is this with its own table, age and batch settings.
 */
export async function pruneOlderThan(
  days: number,
  step: (cutoff: Date, batch: number) => Promise<number>,
  opts: { batch: number; pauseMs: number; maxBatches: number },
): Promise<BatchRun & { cutoff: string }> {
  const cutoff = new Date(Date.now() - days * 86_400_000);
  const r = await inBatches(() => step(cutoff, opts.batch), opts);
  return { ...r, cutoff: cutoff.toISOString() };
}
