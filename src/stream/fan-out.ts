/**
 * Who gets which frames. Connections are grouped by what they see: their visibility class (public,
 * staff) and their filter (none, or its canonical key). Each group has one Batcher, so a group's
 * batch is built, serialised and framed once per flush however many connections (WebSocket or SSE)
 * share it. The two unfiltered groups always exist and are the broadcast path of before filters;
 * a filtered group exists while it has members.
 *
 * Each event read is offered to the groups that may want it, never to each connection. The
 * unfiltered groups get every event; filtered groups are found through an index (GroupIndex): each
 * filtered group is listed under the values of one kind its filter names (a token address, else a
 * token symbol, else a tag, else a type), and an event looks up its own type and attribute values,
 * so it is checked against the few groups that share one of them rather than against all of them
 * (a process with hundreds of distinct filters pays for the ones an event can match). A filtered
 * group batches only the events it wants (its clients get batches of up to batchMax of *their*
 * events); after each read every filtered group's cursor moves past the events it did not want.
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
import type { AttributeKind } from '../platform/events/filter.js';
import { filterMatches, type StreamFilter } from './rules/filter.js';
import { batchFrame, unixSeconds, type StreamItem } from './rules/frames.js';

class Group {
  readonly members = new Set<Connection>();
  readonly batcher: Batcher;
  /** The stamp of the last item offered to this group through the index (GroupIndex.offer). */
  offeredFor = 0;

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

  /** An event this group may want (every event for an unfiltered group, index hits for a filtered one). */
  offer(item: StreamItem): void {
    if (!this.staff && item.staffOnly) return;
    if (this.filter === null || filterMatches(this.filter, item)) this.batcher.push(item);
  }
}

type IndexKind = 'types' | AttributeKind;

/**
 * Filtered groups by the values of one kind their filter names: an event can only match a filter
 * that lists one of its values of that kind, so the groups listed under the event's own values are
 * the only candidates (each is still checked against its whole filter). The kind is the first of
 * assets, token_addresses, token_symbols, tags, types that the filter names (the first ones are the most
 * selective in practice).
 */
class GroupIndex {
  private readonly byKind: Record<IndexKind, Map<string, Group[]>> = {
    types: new Map(),
    token_addresses: new Map(),
    token_symbols: new Map(),
    tags: new Map(),
    assets: new Map(),
  };

  add(g: Group): void {
    const { kind, values } = anchorOf(g.filter!);
    const map = this.byKind[kind];
    for (const v of values) {
      const list = map.get(v);
      if (list) list.push(g);
      else map.set(v, [g]);
    }
  }

  remove(g: Group): void {
    const { kind, values } = anchorOf(g.filter!);
    const map = this.byKind[kind];
    for (const v of values) {
      const list = map.get(v)?.filter((x) => x !== g);
      if (list && list.length > 0) map.set(v, list);
      else map.delete(v);
    }
  }

  /**
   * Offers the item to each group listed under one of its values, once (`stamp`, new for each item,
   * marks the groups already offered it: a group can be listed under two of the item's values).
   */
  offer(item: StreamItem, stamp: number): void {
    offerAll(this.byKind.types.get(item.type), item, stamp);
    const a = item.attrs;
    if (a === null) return;
    offerValues(this.byKind.token_addresses, a.token_addresses, item, stamp);
    offerValues(this.byKind.token_symbols, a.token_symbols, item, stamp);
    offerValues(this.byKind.tags, a.tags, item, stamp);
    if (a.assets) offerValues(this.byKind.assets, a.assets, item, stamp);
  }
}

function offerValues(map: Map<string, Group[]>, values: readonly string[], item: StreamItem, stamp: number): void {
  if (map.size === 0) return;
  for (let i = 0; i < values.length; i++) offerAll(map.get(values[i]), item, stamp);
}

function offerAll(groups: Group[] | undefined, item: StreamItem, stamp: number): void {
  if (groups === undefined) return;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (g.offeredFor === stamp) continue;
    g.offeredFor = stamp;
    g.offer(item);
  }
}

function anchorOf(f: StreamFilter): { kind: IndexKind; values: ReadonlySet<string> } {
  if (f.assets) return { kind: 'assets', values: f.assets };
  if (f.token_addresses !== null) return { kind: 'token_addresses', values: f.token_addresses };
  if (f.token_symbols !== null) return { kind: 'token_symbols', values: f.token_symbols };
  if (f.tags !== null) return { kind: 'tags', values: f.tags };
  // A filter names at least one kind (parseStreamFilter returns null for an empty one).
  return { kind: 'types', values: f.types! };
}

export class FanOut {
  private readonly groups = new Map<string, Group>();
  private readonly groupOf = new Map<Connection, Group>();
  /** The two unfiltered groups (public, staff), offered every event. */
  private readonly broadcast: Group[];
  /**
   * Filtered groups, as a list (cursor moves after each read) and indexed (which to offer an event).
   * The list is replaced, never changed in place: a connection that closes while a frame is being
   * written leaves its group during push(), which may be iterating the list.
   */
  private filtered: Group[] = [];
  private readonly index = new GroupIndex();
  /** Items offered so far: the stamp that dedupes a group found under two of an item's values. */
  private offered = 0;

  private readonly flushSlackMs: number;
  private readonly flushDue = () => {
    const by = Date.now() + this.flushSlackMs;
    for (const g of this.groups.values()) g.batcher.flushIfDue(by);
  };

  /** `flushSlackMs`: how much earlier than due a batch may go out with others (default min(20 ms, batchMs / 10)). */
  constructor(private readonly opts: BatcherOptions & { flushSlackMs?: number }) {
    this.flushSlackMs = opts.flushSlackMs ?? Math.min(20, Math.floor(opts.batchMs / 10));
    // The broadcast groups are permanent (unfiltered connections behave exactly as before filters).
    this.broadcast = [new Group(false, null, opts, this.flushDue), new Group(true, null, opts, this.flushDue)];
    for (const g of this.broadcast) this.groups.set(groupKey(g.staff, null), g);
  }

  /** The connection starts receiving its group's frames (before any history read: resume.ts). */
  join(conn: Connection): void {
    const key = groupKey(conn.staff, conn.filter);
    let g = this.groups.get(key);
    if (!g) {
      g = new Group(conn.staff, conn.filter, this.opts, this.flushDue);
      this.groups.set(key, g);
      this.filtered = [...this.filtered, g];
      this.index.add(g);
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
      this.filtered = this.filtered.filter((x) => x !== g);
      this.index.remove(g);
    }
  }

  /** Events read from the stream, in order. */
  push(items: readonly StreamItem[]): void {
    if (items.length === 0) return;
    const [publicGroup, staffGroup] = this.broadcast;
    for (const item of items) {
      publicGroup.offer(item);
      staffGroup.offer(item);
      if (this.filtered.length === 0) continue;
      this.index.offer(item, ++this.offered);
    }
    // Every filtered group has now seen these events, wanted or not: its next frame's cursor may
    // move past the ones it left out (a frame sent during the loop above, at batchMax, ends on the
    // event that filled it, so moving its cursor only now changes nothing).
    const last = items[items.length - 1].id;
    for (const g of this.filtered) g.batcher.advance(last);
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
