/**
 * PostgreSQL's side of a benchmark: CPU time of its client backends by application_name (from
 * /proc, by the pids pg_stat_activity names), and a sampler of what those backends are doing.
 */
import type pg from 'pg';
import { cpuTicks, TICKS_PER_S } from '../../lib/proc-stat.js';

/**
 * CPU ticks so far of every client backend, keyed by pid, with its application_name. A delta
 * between two snapshots (pidCpuDelta) is the CPU those backends spent in between; a backend that
 * appeared in between counts from zero, one that exited in between is lost (pools here keep theirs).
 */
export async function backendCpu(admin: pg.Client): Promise<Map<number, { app: string; ticks: number }>> {
  const r = await admin.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const m = new Map<number, { app: string; ticks: number }>();
  for (const row of r.rows) {
    const t = cpuTicks(row.pid);
    if (Number.isFinite(t)) m.set(row.pid, { app: row.app, ticks: t });
  }
  return m;
}

/** CPU seconds per application_name between two backendCpu snapshots. */
export function backendCpuDelta(before: Map<number, { app: string; ticks: number }>, after: Map<number, { app: string; ticks: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [pid, a] of after) {
    const d = a.ticks - (before.get(pid)?.ticks ?? 0);
    out.set(a.app, (out.get(a.app) ?? 0) + d / TICKS_PER_S);
  }
  return out;
}

/**
 * pg_locks' view of the event-writer key (4995617886660722687, classid high 32 bits, objid low): a
 * transaction holds it, shared, from drawing an event id to its end (event_log_draw(), migration
 * 20261128T090000_event_log_insert_time_ids).
 */
const EVENT_LOCK_CLASSID = 1163132927;
const EVENT_LOCK_OBJID = 4294967295;

/**
 * Samples pg_stat_activity every `everyMs` while running: for the backends of one application_name,
 * the mean number in each state (running, waiting for an advisory lock, idle in a transaction
 * waiting for the client, other waits); and whether an event writer is in flight (a transaction
 * holding the event-writer key from drawing an event id to its end) and what it is doing: running
 * (its INSERT or the COMMIT) or idle in its transaction, waiting for its client to send the next
 * statement. Shows how long ids above the horizon wait for the writers below them.
 */
export class ActivitySampler {
  private timer: NodeJS.Timeout | null = null;
  private samples = 0;
  private withLockWaiters = 0;
  private readonly holder = { none: 0, active: 0, idleInTx: 0 };
  private readonly sums = { running: 0, advisoryLock: 0, otherLock: 0, idleInTx: 0, otherWait: 0 };

  constructor(
    private readonly admin: pg.Client,
    private readonly app: string,
    private readonly everyMs = 100,
  ) {}

  start(): void {
    const tick = async () => {
      try {
        const r = await this.admin.query<{ app: string; state: string | null; wtype: string | null; wevent: string | null; holds: boolean }>(
          `SELECT a.application_name AS app, a.state, a.wait_event_type AS wtype, a.wait_event AS wevent,
                  EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
                          AND l.classid = ${EVENT_LOCK_CLASSID} AND l.objid = ${EVENT_LOCK_OBJID}) AS holds
           FROM pg_stat_activity a WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`,
        );
        this.samples++;
        const holder = r.rows.find((row) => row.holds);
        if (!holder) this.holder.none++;
        else if (holder.state === 'idle in transaction') this.holder.idleInTx++;
        else this.holder.active++;
        r.rows = r.rows.filter((row) => row.app === this.app);
        if (r.rows.some((row) => row.state === 'active' && row.wtype === 'Lock' && row.wevent === 'advisory')) this.withLockWaiters++;
        for (const row of r.rows) {
          if (row.state === 'idle in transaction') this.sums.idleInTx++;
          else if (row.state !== 'active') continue;
          else if (row.wtype === 'Lock' && row.wevent === 'advisory') this.sums.advisoryLock++;
          else if (row.wtype === 'Lock') this.sums.otherLock++;
          else if (row.wtype) this.sums.otherWait++;
          else this.sums.running++;
        }
      } catch {
        // sampling is best effort
      }
      if (this.timer) this.timer = setTimeout(() => void tick(), this.everyMs);
    };
    this.timer = setTimeout(() => void tick(), this.everyMs);
  }

  stop(): {
    samples: number;
    running: number;
    advisoryLock: number;
    lockContended: number;
    otherLock: number;
    idleInTx: number;
    otherWait: number;
    /** Share of samples in which the event-order lock was free / held by a running backend / held by one idle in its transaction. */
    holder: { none: number; active: number; idleInTx: number };
  } {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const n = Math.max(1, this.samples);
    return {
      samples: this.samples,
      running: this.sums.running / n,
      advisoryLock: this.sums.advisoryLock / n,
      /** Share of samples in which at least one backend waited for an advisory lock. */
      lockContended: this.withLockWaiters / n,
      otherLock: this.sums.otherLock / n,
      idleInTx: this.sums.idleInTx / n,
      otherWait: this.sums.otherWait / n,
      holder: { none: this.holder.none / n, active: this.holder.active / n, idleInTx: this.holder.idleInTx / n },
    };
  }
}
