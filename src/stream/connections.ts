/**
 * The open connections of a broadcaster, both transports: how each joins its group, catches up
 * from a cursor or event id, loses staff visibility when its token expires, and leaves. Counters of
 * closed connections are kept so that stats() covers the process's whole life.
 */
import type { Logger } from '../platform/logger.js';
import { Connection, type ConnectionSocket } from './connection.js';
import type { FanOut } from './fan-out.js';
import { decodeCursor } from './rules/cursor.js';
import type { StreamFilter } from './rules/filter.js';
import { reconcileFrame, type ReconcileReason } from './rules/frames.js';
import { resume, resumeFromEventId, type ResumeOutcome } from './resume.js';
import type { ResumeFrom } from './sse.js';
import type { Viewer } from './viewer.js';

/** How to end a connection's transport: close 1001 / end the SSE response, or drop it. */
interface Transport {
  sse: boolean;
  end(): void;
  kill(): void;
}

type HistoryOptions = Parameters<typeof resumeFromEventId>[2];

interface ConnectionsOptions {
  connOpts: { queueMax: number; sendBufferLimit: number };
  fanOut: FanOut;
  history: HistoryOptions;
  log: Logger;
}

/** The longest delay setTimeout takes. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class Connections {
  private readonly transports = new Map<Connection, Transport>();
  readonly resumes: Record<ResumeOutcome, number> = { resumed: 0, reconciled: 0, abandoned: 0 };
  private backlogsOfClosed = 0;
  private framesSentOfClosed = 0;

  constructor(private readonly o: ConnectionsOptions) {}

  get size(): number {
    return this.transports.size;
  }

  all(): IterableIterator<Connection> {
    return this.transports.keys();
  }

  /**
   * A new connection (either transport): it joins its group at once (before any history read,
   * resume.ts) and, with `from`, catches up. `dispose` when the transport has closed.
   */
  open(socket: ConnectionSocket, viewer: Viewer, filter: StreamFilter | null, from: ResumeFrom | null, transport: Transport): { conn: Connection; dispose(): void } {
    const { fanOut } = this.o;
    const conn = new Connection(socket, this.o.connOpts, { staff: viewer.staff, filter, mode: from === null ? 'live' : 'catching_up' });
    this.transports.set(conn, transport);
    fanOut.join(conn);
    let expiry: NodeJS.Timeout | null = null;
    if (viewer.staff && viewer.staffUntilMs !== null) {
      expiry = setTimeout(() => fanOut.downgrade(conn), Math.min(Math.max(0, viewer.staffUntilMs - Date.now()), MAX_TIMEOUT_MS));
    }
    if (from !== null) this.catchUp(conn, from);
    const dispose = () => {
      if (!this.transports.delete(conn)) return;
      if (expiry) clearTimeout(expiry);
      this.backlogsOfClosed += conn.counters.backlogs;
      this.framesSentOfClosed += conn.counters.framesSent;
      conn.close();
      fanOut.leave(conn);
    };
    return { conn, dispose };
  }

  private catchUp(conn: Connection, from: ResumeFrom): void {
    const history = this.o.history;
    const replay = 'cursor' in from ? resume(conn, decodeCursor(from.cursor), history) : resumeFromEventId(conn, from.eventId, history);
    replay.then(
      (outcome) => this.resumes[outcome]++,
      (err) => {
        this.o.log.warn({ err: (err as Error).message }, 'resume failed; client told to reconcile');
        this.resumes.reconciled++;
        conn.finishCatchUp(null, 'resubscribed');
      },
    );
  }

  /** A reconcile for every connection, whatever its group. */
  reconcileAll(reason: ReconcileReason): void {
    const frame = reconcileFrame(reason);
    for (const c of this.transports.keys()) c.deliver(frame);
  }

  /** Ends every transport gracefully (close 1001, end of the SSE response). */
  endAll(): void {
    for (const t of this.transports.values()) t.end();
  }

  killAll(): void {
    for (const t of this.transports.values()) t.kill();
  }

  /** Counts over the open connections, plus the closed ones' backlogs and frames. */
  counts(): { connections: number; sseConnections: number; staffConnections: number; catchingUp: number; backlogs: number; framesSent: number } {
    let catchingUp = 0;
    let backlogs = this.backlogsOfClosed;
    let framesSent = this.framesSentOfClosed;
    let staff = 0;
    let sse = 0;
    for (const [c, t] of this.transports) {
      if (c.mode === 'catching_up') catchingUp++;
      if (c.staff) staff++;
      if (t.sse) sse++;
      backlogs += c.counters.backlogs;
      framesSent += c.counters.framesSent;
    }
    return { connections: this.transports.size, sseConnections: sse, staffConnections: staff, catchingUp, backlogs, framesSent };
  }
}
