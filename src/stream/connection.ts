/**
 * One client connection and its bounded queue.
 *
 * Frames are written straight to the socket while it keeps up. When the socket's own buffer holds
 * more than `sendBufferLimit` bytes the client is reading slower than we send: frames wait in the
 * connection's queue instead, and are written as the buffer drains. The queue is bounded by
 * `queueMax` events; past that it is dropped (not grown) and the client gets
 * `{type: "reconcile", reason: "backlog"}`, after which it receives live frames again.
 *
 * A resuming connection starts in `catching_up`: the events it missed are written from the stream's
 * history while live frames for it wait in the same bounded queue. When the history is done, the
 * waiting frames are released without the events the history already covered (see `admit`).
 */
import type { Cursor } from './rules/cursor.js';
import { filterMatches, type StreamFilter } from './rules/filter.js';
import { batchFrame, heartbeatFrame, reconcileFrame, type BatchFrame, type OutFrame, type ReconcileReason, type StreamItem } from './rules/frames.js';
import { compareIds, maxId, type StreamId } from './rules/stream-id.js';

/** What a Connection needs of a socket (a ws WebSocket, or an SSE response, behind a thin adapter). */
export interface ConnectionSocket {
  readonly bufferedAmount: number;
  /** False once the socket is closing or closed. */
  isOpen(): boolean;
  /** Send one frame (`frame.data` is its payload; `wireOf(frame)` / `sseOf(frame)` its bytes on the wire). */
  send(frame: OutFrame): void;
  /** A protocol ping answered by `Connection.pong()`; absent (SSE) when the protocol has none. */
  ping?(): void;
  terminate(): void;
}

interface ConnectionOptions {
  /** Events that may wait for a slow or catching-up client before its queue is dropped. */
  queueMax: number;
  /** Bytes in the socket's buffer above which the client counts as slow. */
  sendBufferLimit: number;
  /** How often a waiting queue re-checks the socket buffer. */
  drainCheckMs?: number;
}

type ConnectionMode = 'catching_up' | 'live';

/**
 * A marker in a connection's stream of frames: events up to `through` reached the client by
 * another path, so later frames must not repeat them. It takes effect at its place in the order.
 */
interface SkipMark {
  kind: 'skip';
  through: StreamId;
}

type Delivery = OutFrame | SkipMark;

let nextId = 1;

export class Connection {
  readonly id = nextId++;
  mode: ConnectionMode;
  /** Whether staff-only events are visible (cleared when a staff token expires). */
  staff: boolean;
  /** The events it asked for; null: all it may see. */
  readonly filter: StreamFilter | null;
  /** Called when the queue overflowed (a catch-up in progress stops). */
  onBacklog: (() => void) | null = null;
  readonly counters = { backlogs: 0, framesSent: 0 };

  private queue: Delivery[] = [];
  private queuedEvents = 0;
  /** Events with ids up to this were already sent (history, or a frame of the other class). */
  private skipThrough: StreamId | null = null;
  private drainTimer: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  private closed = false;

  constructor(
    private readonly socket: ConnectionSocket,
    private readonly opts: ConnectionOptions,
    init: { staff: boolean; mode: ConnectionMode; filter?: StreamFilter | null },
  ) {
    this.staff = init.staff;
    this.mode = init.mode;
    this.filter = init.filter ?? null;
  }

  /** Whether this connection is to receive the event (visibility and filter): the rule history replays apply. */
  wants(item: StreamItem): boolean {
    return (this.staff || !item.staffOnly) && (this.filter === null || filterMatches(this.filter, item));
  }

  /** A frame (or skip mark) for this connection, in stream order. */
  deliver(frame: Delivery): void {
    if (this.closed) return;
    if (this.mode === 'catching_up') return this.enqueue(frame);
    if (frame.kind === 'skip') return this.skip(frame.through);
    const admitted = this.admit(frame);
    if (!admitted) return;
    if (this.queue.length > 0 || this.congested()) {
      this.enqueue(admitted);
      this.scheduleDrain();
      return;
    }
    this.write(admitted);
  }

  /** Send a history frame during catch-up; false once the catch-up was abandoned (backlog, close). */
  writeHistory(frame: BatchFrame): boolean {
    if (this.closed || this.mode !== 'catching_up') return false;
    this.write(frame);
    return true;
  }

  /**
   * End of catch-up. `heldThrough`: the client now holds every visible event up to this id (the
   * last history entry read); null when the history did not reach back and `reconcile` is sent.
   */
  finishCatchUp(heldThrough: StreamId | null, reconcile?: ReconcileReason): void {
    if (this.closed || this.mode !== 'catching_up') return;
    if (reconcile) this.write(reconcileFrame(reconcile));
    if (heldThrough) this.skip(heldThrough);
    this.mode = 'live';
    const waiting = this.queue;
    this.queue = [];
    this.queuedEvents = 0;
    for (const f of waiting) {
      if (f.kind === 'skip') {
        this.skip(f.through);
        continue;
      }
      const admitted = this.admit(f);
      if (admitted) this.enqueue(admitted);
    }
    this.drain();
  }

  /** Events up to `id` have reached this client by another path: do not send them again. */
  skip(id: StreamId): void {
    this.skipThrough = this.skipThrough ? maxId(this.skipThrough, id) : id;
  }

  /** The staff token expired: from now on nothing staff-only goes out, not even what is queued. */
  downgrade(): void {
    this.staff = false;
    if (this.mode === 'catching_up') return; // admit() filters the waiting frames on release
    const waiting = this.queue;
    this.queue = [];
    this.queuedEvents = 0;
    for (const f of waiting) {
      if (f.kind !== 'batch' || !f.staffOnly) {
        this.enqueue(f);
        continue;
      }
      const items = f.items.filter((i) => !i.staffOnly);
      if (items.length > 0) this.enqueue(batchFrame(items, f.cursor, f.t));
    }
  }

  /**
   * Heartbeat tick: a socket that did not answer the previous ping is dead (half-open TCP, frozen
   * client) and is terminated; otherwise ping it and send the spec's heartbeat frame. A socket
   * without pings (SSE) only gets the heartbeat; TCP notices a dead peer there.
   */
  heartbeat(): 'alive' | 'dead' {
    if (this.closed) return 'dead';
    const pings = this.socket.ping !== undefined;
    if (pings && this.awaitingPong) {
      this.socket.terminate();
      return 'dead';
    }
    this.awaitingPong = pings;
    if (!this.socket.isOpen()) return 'alive';
    this.socket.ping?.();
    this.socket.send(heartbeatFrame);
    return 'alive';
  }

  pong(): void {
    this.awaitingPong = false;
  }

  /** Events waiting in the queue (catch-up buffer or slow socket). */
  queued(): number {
    return this.queuedEvents;
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.queuedEvents = 0;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = null;
  }

  isClosed(): boolean {
    return this.closed;
  }

  congested(): boolean {
    return this.socket.bufferedAmount > this.opts.sendBufferLimit;
  }

  /**
   * The frame as this connection may see it: without events it already holds (skipThrough) or may
   * no longer see (staff-only after a downgrade), with the cursor adjusted to what it holds.
   * Null when nothing is left to send.
   */
  private admit(frame: OutFrame): OutFrame | null {
    if (frame.kind === 'control') return frame;
    const skip = this.skipThrough;
    const hideStaff = !this.staff;
    if (skip === null && !(hideStaff && frame.staffOnly)) return frame;
    const items = frame.items.filter((i) => !(hideStaff && i.staffOnly) && (skip === null || compareIds(i.id, skip) > 0));
    let cursor: Cursor = frame.cursor;
    if (skip !== null) {
      if (compareIds(frame.cursor.upTo, skip) >= 0) {
        // Frames after one whose cursor reached skip only carry later events.
        this.skipThrough = null;
      } else {
        // The client holds everything up to skip plus what the frame's own cursor says.
        cursor = { upTo: skip, also: frame.cursor.also.filter((id) => compareIds(id, skip) > 0) };
      }
    }
    if (items.length === 0) return null;
    if (items.length === frame.items.length && cursor === frame.cursor) return frame;
    return batchFrame(items, cursor, frame.t);
  }

  private enqueue(frame: Delivery): void {
    this.queue.push(frame);
    if (frame.kind === 'batch') this.queuedEvents += frame.items.length;
    if (this.queuedEvents > this.opts.queueMax) this.backlog();
  }

  /** The client is too slow: the queue is dropped, not grown, and the client re-polls the REST feed. */
  backlog(): void {
    if (this.closed) return;
    this.queue = [];
    this.queuedEvents = 0;
    this.skipThrough = null;
    this.counters.backlogs++;
    this.mode = 'live';
    this.write(reconcileFrame('backlog'));
    this.onBacklog?.();
  }

  private drain(): void {
    while (this.queue.length > 0 && !this.closed && !this.congested()) {
      const f = this.queue.shift()!;
      if (f.kind === 'skip') continue; // only queued in catching_up, released before draining
      if (f.kind === 'batch') this.queuedEvents -= f.items.length;
      this.write(f);
    }
    if (this.queue.length > 0) this.scheduleDrain();
  }

  private scheduleDrain(): void {
    if (this.drainTimer || this.closed) return;
    this.drainTimer = setTimeout(() => {
      this.drainTimer = null;
      this.drain();
    }, this.opts.drainCheckMs ?? 20);
  }

  private write(frame: OutFrame): void {
    if (!this.socket.isOpen()) return;
    this.socket.send(frame);
    this.counters.framesSent++;
  }
}
