/**
 * Group commit for the story-assign jobs of one worker process. Assignments are serialised (one
 * advisory lock), so jobs that arrive while an assignment transaction runs would only wait for it;
 * instead they join the next batch, which assigns them in arrival order (the order the jobs
 * reached the batcher) in one transaction (assign-service.ts). A batch that fails is retried item by
 * item, each in its own transaction, so one bad item fails only its own job. A worker killed
 * mid-batch rolls the whole batch back; each of its jobs is retried and assigns its item once.
 */
import type { Db } from '../platform/db.js';
import { assignStoryItems, type AssignOptions, type AssignOutcome, type ItemRef } from './assign-service.js';

/** At most this many items per transaction (bounds its locks and duration). */
const MAX_BATCH = 200;

interface Waiting {
  ref: ItemRef;
  resolve(o: AssignOutcome): void;
  reject(err: unknown): void;
}

type Run = (refs: readonly ItemRef[]) => Promise<AssignOutcome[]>;

export class AssignBatcher {
  private readonly waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly run: Run,
    private readonly maxBatch: number = MAX_BATCH,
  ) {}

  /** Assign one item in the next batch; resolves with its outcome once the batch committed. */
  submit(ref: ItemRef): Promise<AssignOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ref, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.length > 0) await this.runBatch(this.waiting.splice(0, this.maxBatch));
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    try {
      const out = await this.run(batch.map((w) => w.ref));
      batch.forEach((w, i) => w.resolve(out[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const w of batch) {
        try {
          w.resolve((await this.run([w.ref]))[0]!);
        } catch (e) {
          w.reject(e);
        }
      }
    }
  }
}

const batchers = new WeakMap<Db, AssignBatcher>();

/**
 * Assign one item through the process's batcher for `db` (the worker's job): it commits with the
 * other items that arrived while the previous batch ran.
 */
export function assignStoryItemBatched(db: Db, ref: ItemRef, opts: AssignOptions = {}): Promise<AssignOutcome> {
  let b = batchers.get(db);
  if (!b) {
    b = new AssignBatcher((refs) => assignStoryItems(db, refs, new Date(), opts));
    batchers.set(db, b);
  }
  return b.submit(ref);
}
