/**
 * Wakes the relay soon after a commit that recorded events. Every RELAY_POLL_MS this process asks
 * PostgreSQL whether the outbox holds a committed event (one index probe, on a connection of its
 * own, a prepared statement), and when it does enqueues a relay-events run, deduplicated
 * (jobs/relay-events.ts): a burst of commits costs one or two runs, and a wake-up during a run is
 * kept as one follow-up run. Enqueues are at least RELAY_WAKE_SPACING_MS apart and never overlap.
 *
 * Why a poll and not LISTEN/NOTIFY (what this did until migration 20261130T100000): PostgreSQL
 * serialises the commits of every transaction that sent a NOTIFY (PreCommit_Notify takes one
 * database-wide lock and holds it past the commit record's flush), so each event-writing
 * transaction queued behind every other one at COMMIT. pgbench, the submission transaction, 32
 * clients, fsync on: 1,277-1,282 transactions/s with the NOTIFY, 1,643-1,762 without, and about
 * 170 µs less PostgreSQL CPU per transaction. A poll costs one probe per RELAY_POLL_MS per worker
 * process whatever the write rate, adds at most RELAY_POLL_MS to an event's way to the stream
 * (10 ms on average), and also works behind a transaction-mode connection pooler, where LISTEN
 * gets nothing.
 *
 * Writers therefore do nothing after their commit: no Redis call on the request path, no hand-wired
 * follow-up. When the connection drops, it reconnects with backoff (and wakes the relay at its
 * first probe if anything waits); the clock's sweep covers whatever is left.
 */
import pg from 'pg';
import type { Logger } from '../platform/logger.js';

/** How often a worker process looks for committed, unrelayed events. */
export const RELAY_POLL_MS = 20;

/** Least time between two relay enqueues of one waker (see the module comment). */
const RELAY_WAKE_SPACING_MS = 10;

/** A failed probe or enqueue is logged at most this often (the sweep catches up meanwhile). */
const WARN_EVERY_MS = 10_000;

/** Is there a committed event in the outbox? By primary key: dead entries left by the relay's deletes are skipped in the index. */
const OUTBOX_PROBE = { name: 'relay-waker-outbox-probe', text: 'SELECT event_id FROM event_outbox ORDER BY event_id LIMIT 1' };

interface RelayWakerOptions {
  databaseUrl: string;
  log: Logger;
  /** Enqueue one relay run; failures are logged (the sweep catches up). */
  wake: () => Promise<unknown>;
  /** Time between two probes (default RELAY_POLL_MS). */
  pollMs?: number;
  /** Least time between two enqueues (default RELAY_WAKE_SPACING_MS). */
  spacingMs?: number;
}

export class RelayWaker {
  private client: pg.Client | null = null;
  private stopped = false;
  private inflight = false;
  private again = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private spacingTimer: NodeJS.Timeout | null = null;
  private lastWakeAt = Number.NEGATIVE_INFINITY;
  private lastWarnAt = Number.NEGATIVE_INFINITY;
  /** probes: outbox probes made; found: probes that saw a waiting event; wakes: enqueues made. */
  readonly counters = { probes: 0, found: 0, wakes: 0, wakeErrors: 0, reconnects: 0 };
  /** Resolves once the first probe has been answered. */
  readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor(private readonly opts: RelayWakerOptions) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: 'relay-waker' });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client === client) this.client = null;
      this.scheduleReconnect();
    });
    try {
      await client.connect();
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.retryMs = 100;
      await this.probe(client);
    } catch (err) {
      this.warn(err, 'relay waker: could not reach PostgreSQL; retrying');
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
    }
  }

  /** One probe, then the next one RELAY_POLL_MS later, for as long as this is the waker's connection. */
  private async probe(client: pg.Client): Promise<void> {
    const r = await client.query<{ event_id: string }>(OUTBOX_PROBE);
    this.counters.probes++;
    this.markReady();
    if (r.rows.length > 0) {
      this.counters.found++;
      this.wake();
    }
    if (this.stopped || this.client !== client) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      this.probe(client).catch((err: unknown) => {
        // The connection broke ('end' reconnects) or the statement failed: start over on a new one.
        this.warn(err, 'relay waker: outbox probe failed; reconnecting');
        if (this.client === client) this.client = null;
        void client.end().catch(() => undefined);
        this.scheduleReconnect();
      });
    }, this.opts.pollMs ?? RELAY_POLL_MS);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer) return;
    this.counters.reconnects++;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.client) void this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }

  private warn(err: unknown, msg: string): void {
    const now = performance.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.opts.log.warn({ err: (err as Error).message }, msg);
  }

  /**
   * Enqueue a run, coalescing: while one enqueue is in flight or the spacing since the last one has
   * not passed, further wake-ups become one more enqueue, made as soon as both allow. None is lost.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.inflight || this.spacingTimer) {
      this.again = true;
      return;
    }
    const wait = this.lastWakeAt + (this.opts.spacingMs ?? RELAY_WAKE_SPACING_MS) - performance.now();
    if (wait > 0) {
      this.again = true;
      this.spacingTimer = setTimeout(() => {
        this.spacingTimer = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      }, wait);
      return;
    }
    this.inflight = true;
    this.lastWakeAt = performance.now();
    this.counters.wakes++;
    this.opts
      .wake()
      .catch((err: unknown) => {
        this.counters.wakeErrors++;
        this.warn(err, 'relay waker: could not enqueue relay-events (the sweep will catch up)');
      })
      .finally(() => {
        this.inflight = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.spacingTimer) clearTimeout(this.spacingTimer);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}
