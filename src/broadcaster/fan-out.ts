/**
 * Who gets which frames. Connections are grouped by what they see: their visibility class (public,
 * staff) and their filter (none, or its canonical key). Each group has one Batcher, so a group's
 * batch is built, serialised and framed once per flush however many connections (WebSocket or SSE)
 * share it. The two unfiltered groups always exist and are the broadcast path of before filters;
 * a filtered group exists while it has members.
 *
 * Each event read is offered to every group: O(groups) filter checks per event, never per
 * connection. A filtered group batches only the events it wants (its clients get batches of up to
 * batchMax of *their* events) and advances its cursor over the rest.
 *
 * Batches of different groups fall due at different moments, and each wake-up of the process costs
 * CPU of its own (on the benchmark VM about 170 µs beyond the work done, measured with a read loop
 * 20 ms apart against one back to back). With filters, groups below batchMax events per window
 * flush on their timers, each at its own moment. So whenever the process is awake to handle a
 * batch (events read, or a batch's timer), every group whose batch is due within `flushSlackMs` is
 * flushed too. A batch never goes out later than batchMs after its first event, and at most the
 * slack earlier.
 */
import { Batcher, type BatcherOptions } from './batcher.js';
import type { Connection } from './connection.js';
import { filterMatches, type StreamFilter } from './filter.js';
import { batchFrame, unixSeconds, type StreamItem } from './frames.js';

class Group {
  readonly members = new Set<Connection>();
  readonly batcher: Batcher;

  constructor(
    readonly staff: boolean,
    readonly filter: StreamFilter | null,
    opts: BatcherOptions,
    onTimer: () => void,
  ) {
    this.batcher = new Batcher(
      opts,
      (items, cursor, t) => {
        if (this.members.size === 0) return;
        const frame = batchFrame(items, cursor, t);
        for (const c of this.members) c.deliver(frame);
      },
      onTimer,
    );
  }

  offer(item: StreamItem): void {
    const visible = this.staff || !item.staffOnly;
    if (this.filter === null) {
      if (visible) this.batcher.push(item);
    } else if (visible && filterMatches(this.filter, item)) {
      this.batcher.push(item);
    } else {
      this.batcher.advance(item.id);
    }
  }
}

export class FanOut {
  private readonly groups = new Map<string, Group>();
  private readonly groupOf = new Map<Connection, Group>();

  private readonly flushSlackMs: number;
  private readonly flushDue = () => {
    const by = Date.now() + this.flushSlackMs;
    for (const g of this.groups.values()) g.batcher.flushIfDue(by);
  };

  /** `flushSlackMs`: how much earlier than due a batch may go out with others (default min(20 ms, batchMs / 10)). */
  constructor(private readonly opts: BatcherOptions & { flushSlackMs?: number }) {
    this.flushSlackMs = opts.flushSlackMs ?? Math.min(20, Math.floor(opts.batchMs / 10));
    // The broadcast groups are permanent (unfiltered connections behave exactly as before filters).
    this.groups.set(groupKey(false, null), new Group(false, null, opts, this.flushDue));
    this.groups.set(groupKey(true, null), new Group(true, null, opts, this.flushDue));
  }

  /** The connection starts receiving its group's frames (before any history read: resume.ts). */
  join(conn: Connection): void {
    const key = groupKey(conn.staff, conn.filter);
    let g = this.groups.get(key);
    if (!g) {
      g = new Group(conn.staff, conn.filter, this.opts, this.flushDue);
      this.groups.set(key, g);
    }
    g.members.add(conn);
    this.groupOf.set(conn, g);
  }

  leave(conn: Connection): void {
    const g = this.groupOf.get(conn);
    if (!g) return;
    this.groupOf.delete(conn);
    g.members.delete(conn);
    if (g.members.size === 0 && g.filter !== null) {
      g.batcher.close();
      this.groups.delete(groupKey(g.staff, g.filter));
    }
  }

  /** Events read from the stream, in order. */
  push(items: readonly StreamItem[]): void {
    for (const item of items) for (const g of this.groups.values()) g.offer(item);
    this.flushDue();
  }

  /** Emit every pending batch now (before a reconcile, on shutdown). */
  flush(): void {
    for (const g of this.groups.values()) g.batcher.flush();
  }

  close(): void {
    for (const g of this.groups.values()) g.batcher.close();
  }

  /**
   * A staff token expired: the connection continues in the public group of its filter, without
   * losing or repeating a public event across the switch (viewer.ts).
   */
  downgrade(conn: Connection): void {
    const g = this.groupOf.get(conn);
    if (!g || !g.staff) return;
    // Read the staff group's state before leaving it (leaving may close an emptied group).
    const pending = g.batcher.pendingItems().filter((i) => !i.staffOnly);
    const last = g.batcher.lastId();
    this.leave(conn);
    conn.downgrade();
    // Public events the staff group holds for its next batch would otherwise never reach it...
    if (pending.length > 0 && last) conn.deliver(batchFrame(pending, { upTo: last, also: [] }, unixSeconds()));
    // ...and the public group's frames must not repeat what it already got as staff.
    if (last) conn.deliver({ kind: 'skip', through: last });
    this.join(conn);
  }

  stats(): { groups: number; filteredConnections: number } {
    let filtered = 0;
    for (const g of this.groups.values()) if (g.filter) filtered += g.members.size;
    return { groups: this.groups.size, filteredConnections: filtered };
  }
}

function groupKey(staff: boolean, filter: StreamFilter | null): string {
  return `${staff ? 'staff' : 'public'}|${filter?.key ?? ''}`;
}
