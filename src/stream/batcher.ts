/**
 * Batching (spec Events, Frames rules 1 and 2) for one group of connections that see the same
 * events: a visibility class (public, staff) and a filter (none, or one canonical filter; see
 * fan-out.ts). Every connection of a group gets the same frames, so a batch is built once and not
 * once per socket.
 *
 * - Normal events are held until `batchMs` after the first of them, or until `batchMax` are held.
 *   The group's owner (fan-out.ts) may flush a batch up to its slack before that (`flushIfDue`),
 *   so that the batches of many groups go out in one wake-up of the process rather than one each.
 * - A sponsored event is emitted at once in its own frame, ahead of the pending batch.
 * - Each frame carries the cursor of the group's position after it (see cursor.ts). While a batch
 *   is pending, "every event before the pending batch, plus the sponsored events sent ahead of it".
 *   A filtered group also `advance`s over the events it does not want, so that its cursors keep up
 *   with the stream even when few events match.
 */
import { MAX_CURSOR_ALSO, type Cursor } from './rules/cursor.js';
import { unixSeconds, type StreamItem } from './rules/frames.js';
import { previousId, type StreamId } from './rules/stream-id.js';

export interface BatcherOptions {
  batchMs: number;
  batchMax: number;
}

type EmitBatch = (items: readonly StreamItem[], cursor: Cursor, t: number) => void;

export class Batcher {
  private pending: StreamItem[] = [];
  /** Sponsored events sent while the current batch is pending (all after its first event). */
  private ahead: StreamId[] = [];
  private last: StreamId | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When the pending batch is due (Date.now() ms); 0 while none is pending. */
  private due = 0;

  /** `onTimer`: called after this batcher's own timer flushed it (fan-out.ts flushes the other due groups then). */
  constructor(
    private readonly opts: BatcherOptions,
    private readonly emit: EmitBatch,
    private readonly onTimer?: () => void,
  ) {}

  /** Items are pushed in stream order. */
  push(item: StreamItem): void {
    if (item.sponsored) return this.pushSponsored(item);
    this.pending.push(item);
    this.last = item.id;
    if (this.pending.length >= this.opts.batchMax) this.flush();
    else if (!this.timer) {
      this.due = Date.now() + this.opts.batchMs;
      this.timer = setTimeout(() => {
        this.flush();
        this.onTimer?.();
      }, this.opts.batchMs);
    }
  }

  /** Flush the pending batch if it is due by `by` (Date.now() ms). */
  flushIfDue(by: number): void {
    if (this.timer && this.due <= by) this.flush();
  }

  /**
   * An event the group does not want, in stream order: the next frame's cursor may move past it
   * (the clients hold every event they want up to it once the pending batch is sent).
   */
  advance(id: StreamId): void {
    this.last = id;
  }

  /** Emit the pending batch now (on its timer, at batchMax, before a reconcile, on shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.due = 0;
    if (this.pending.length === 0) return;
    const items = this.pending;
    this.pending = [];
    this.ahead = [];
    // Everything pushed so far has now been sent.
    this.emit(items, { upTo: this.last!, also: [] }, unixSeconds());
  }

  /** Events held for the next batch, oldest first. */
  pendingItems(): readonly StreamItem[] {
    return this.pending;
  }

  /** The id of the last event pushed, or null before the first. */
  lastId(): StreamId | null {
    return this.last;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private pushSponsored(item: StreamItem): void {
    // A burst of sponsored events inside one window would make the cursor grow without bound:
    // past the limit the pending batch goes first (order kept, nothing lost).
    if (this.pending.length > 0 && this.ahead.length >= MAX_CURSOR_ALSO) this.flush();
    this.last = item.id;
    if (this.pending.length === 0) {
      this.emit([item], { upTo: item.id, also: [] }, unixSeconds());
      return;
    }
    this.ahead.push(item.id);
    this.emit([item], { upTo: previousId(this.pending[0].id), also: [...this.ahead] }, unixSeconds());
  }
}
