/**
 * Wakes the relay right after a commit that recorded events. A transaction's first event runs
 * pg_notify('event_outbox') (event_log_draw(), migration 20261129T090000); PostgreSQL delivers it
 * to every listener when (and only when) that transaction commits. On each notification this process
 * enqueues a relay-events run, deduplicated (jobs/relay-events.ts): a burst of commits costs one or
 * two runs, and a wake-up during a run is kept as one follow-up run. Enqueues are at least
 * RELAY_WAKE_SPACING_MS apart: the first notification after a quiet spell enqueues at once, later
 * ones inside the spacing become one enqueue at its end (a busy writer's commits then cost one
 * BullMQ call per spacing instead of one per commit; the run lingers longer than that anyway).
 *
 * Writers therefore do nothing after their commit: no Redis call on the request path, no hand-wired
 * follow-up. When the listening connection drops, it reconnects with backoff and wakes the relay
 * once (it may have missed notifications); the clock's sweep covers whatever is left, e.g. behind a
 * transaction-mode connection pooler that does not pass LISTEN/NOTIFY.
 */
import pg from 'pg';
import type { Logger } from '../logger.js';

export const OUTBOX_CHANNEL = 'event_outbox';

/** Least time between two relay enqueues of one waker (see the module comment). */
const RELAY_WAKE_SPACING_MS = 10;

interface RelayWakerOptions {
  databaseUrl: string;
  log: Logger;
  /** Enqueue one relay run; failures are logged (the sweep catches up). */
  wake: () => Promise<unknown>;
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
  private spacingTimer: NodeJS.Timeout | null = null;
  private lastWakeAt = Number.NEGATIVE_INFINITY;
  readonly counters = { notifications: 0, wakes: 0, wakeErrors: 0, reconnects: 0 };
  /** Resolves once the first LISTEN is in place. */
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
    client.on('notification', () => {
      this.counters.notifications++;
      this.wake();
    });
    client.on('end', () => {
      if (this.client === client) this.client = null;
      this.scheduleReconnect();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.retryMs = 100;
      this.markReady();
      // Notifications sent while we were not listening are gone: relay whatever is waiting.
      this.wake();
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'relay waker: could not listen; retrying');
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer) return;
    this.counters.reconnects++;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 5000);
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
        this.opts.log.warn({ err: (err as Error).message }, 'relay waker: could not enqueue relay-events (the sweep will catch up)');
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
    if (this.spacingTimer) clearTimeout(this.spacingTimer);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}
