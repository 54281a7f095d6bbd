/**
 * Resume (beyond the spec): a client that reconnects with `?cursor=` gets the events it missed
 * from the stream's bounded history, in order and exactly once, then live events.
 *
 * The race with live delivery is closed by order of operations: the connection joins its
 * visibility class (and so starts buffering live frames) before the first history read. Every
 * event up to the reader's position at that moment is already in the stream, so the history read
 * sees it; every later event reaches the buffer. The overlap is removed when the buffer is
 * released (Connection.finishCatchUp skips what the history covered), and the history itself skips
 * the events the cursor says the client holds.
 *
 * When the history no longer reaches back to the cursor (trimmed, or the stream was lost) the
 * client gets `{type: "reconcile", reason: "resubscribed"}` instead, then live events.
 */
import type { Redis } from '../redis.js';
import type { Connection } from './connection.js';
import { cursorHolds, type Cursor } from './cursor.js';
import { batchFrame, itemFromEntry, unixSeconds, type StreamItem } from './frames.js';
import { historyReaches, parseStreamInfo, type StreamInfo } from './reconcile.js';
import { compareIds, maxId, type StreamId } from './stream-id.js';

export interface ResumeOptions {
  redis: Redis;
  streamKey: string;
  batchMax: number;
  /** Entries read per round trip. */
  pageSize?: number;
  /** Past this many replayed events the client is better served by re-polling: reconcile. */
  maxEvents?: number;
  /** How long history may wait for a slow client's socket before the connection gets `backlog`. */
  maxStallMs?: number;
}

export type ResumeOutcome = 'resumed' | 'reconciled' | 'abandoned';

type Entry = [id: string, fields: string[]];

/**
 * Replay history after `cursor` to `conn` (in mode catching_up) and switch it to live. A null
 * cursor (malformed) is treated as one the history does not reach.
 */
export async function resume(conn: Connection, cursor: Cursor | null, opts: ResumeOptions): Promise<ResumeOutcome> {
  if (!cursor) {
    conn.finishCatchUp(null, 'resubscribed');
    return 'reconciled';
  }
  const pageSize = opts.pageSize ?? 500;
  const maxEvents = opts.maxEvents ?? 10_000;
  let from: StreamId = cursor.upTo;
  let first = true;
  let replayed = 0;
  for (;;) {
    // The reach check and the page read are one transaction: nothing can be trimmed in between.
    const tx = opts.redis.multi();
    tx.xrange(opts.streamKey, from, from);
    if (first) tx.xinfo('STREAM', opts.streamKey);
    tx.xrange(opts.streamKey, `(${from}`, '+', 'COUNT', pageSize);
    const res = (await tx.exec()) as [Error | null, unknown][] | null;
    if (conn.isClosed() || conn.mode !== 'catching_up') return 'abandoned';
    if (!res) throw new Error('history read was discarded');
    const present = ((res[0][1] as Entry[] | null)?.length ?? 0) > 0;
    // After the first page `from` is an entry just read: it must still be there.
    const reaches = first ? historyReaches(from, present, infoFrom(res[1])) : present;
    if (!reaches) {
      conn.finishCatchUp(first ? null : from, 'resubscribed');
      return 'reconciled';
    }
    const pageErr = res[res.length - 1][0];
    if (pageErr) throw pageErr;
    const entries = (res[res.length - 1][1] as Entry[] | null) ?? [];
    first = false;

    const items: StreamItem[] = [];
    for (const [id, fields] of entries) {
      const item = itemFromEntry(id, fields);
      if (!item || (item.staffOnly && !conn.staff) || cursorHolds(cursor, id)) continue;
      items.push(item);
    }
    for (let i = 0; i < items.length; i += opts.batchMax) {
      const chunk = items.slice(i, i + opts.batchMax);
      const last = chunk[chunk.length - 1].id;
      const frameCursor: Cursor = { upTo: last, also: cursor.also.filter((id) => compareIds(id, last) > 0) };
      if (!conn.writeHistory(batchFrame(chunk, frameCursor, unixSeconds()))) return 'abandoned';
    }
    replayed += items.length;
    if (entries.length > 0) from = entries[entries.length - 1][0];
    if (entries.length < pageSize) break;
    if (replayed >= maxEvents) {
      conn.finishCatchUp(from, 'resubscribed');
      return 'reconciled';
    }
    if (!(await writable(conn, opts.maxStallMs ?? 10_000))) {
      if (conn.mode === 'catching_up' && !conn.isClosed()) conn.backlog();
      return 'abandoned';
    }
  }
  conn.finishCatchUp(maxId(from, cursor.upTo));
  return 'resumed';
}

function infoFrom([err, reply]: [Error | null, unknown]): StreamInfo | null {
  if (err) {
    if (/no such key/i.test(err.message)) return null;
    throw err;
  }
  return parseStreamInfo(reply);
}

/** Wait until the client's socket has room; false when it stays full for `maxMs` or goes away. */
async function writable(conn: Connection, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  while (conn.congested()) {
    if (conn.isClosed() || conn.mode !== 'catching_up' || Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !conn.isClosed() && conn.mode === 'catching_up';
}
