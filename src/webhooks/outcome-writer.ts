/**
 * Writes the outcomes of webhook attempts for every delivery run of a process, batched: an outcome
 * waits for the statement in flight (if any) and then goes with all the others that arrived
 * meanwhile, in one UPDATE. Under load that is one statement for many deliveries instead of one
 * each (a round trip and a commit per delivery were most of the worker's and PostgreSQL's work);
 * when idle, an outcome is written at once. record() resolves when its row is written.
 */
import type { Db } from '../platform/db.js';
import { recordAttempts, type AttemptRecord } from './queries.js';

/** Outcomes per statement at most. */
const MAX_BATCH = 500;

interface Pending {
  id: number;
  a: AttemptRecord;
  done: (err?: unknown) => void;
}

class OutcomeWriter {
  private queue: Pending[] = [];
  private writing = false;

  constructor(private readonly db: Db) {}

  record(id: number, a: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, a, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await recordAttempts(this.db, batch);
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.done(err);
      }
    }
    this.writing = false;
  }
}

const writers = new WeakMap<Db, OutcomeWriter>();

/** The process's writer for this pool. */
export function outcomeWriter(db: Db): OutcomeWriter {
  let w = writers.get(db);
  if (!w) writers.set(db, (w = new OutcomeWriter(db)));
  return w;
}
