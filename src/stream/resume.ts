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
 *
 * Only the events the connection wants (visibility and filter, Connection.wants) are replayed. An
 * SSE client resumes by event id instead of a cursor: `resumeFromEventId` finds the stream entry
 * that carried that event, which is the cursor.
 */
import type { Redis } from '../platform/redis.js';
import type { Connection } from './connection.js';
import { cursorHolds, type Cursor } from './rules/cursor.js';
import { batchFrame, itemFromEntry, unixSeconds, type StreamItem } from './rules/frames.js';
import { historyReaches, streamInfoFrom } from './rules/reconcile.js';
import { compareIds, maxId, type StreamId } from './rules/stream-id.js';

interface ResumeOptions {
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
    if (first) tx.exists(opts.streamKey).xinfo('STREAM', opts.streamKey);
    tx.xrange(opts.streamKey, `(${from}`, '+', 'COUNT', pageSize);
    const res = (await tx.exec()) as [Error | null, unknown][] | null;
    if (conn.isClosed() || conn.mode !== 'catching_up') return 'abandoned';
    if (!res) throw new Error('history read was discarded');
    const present = ((res[0][1] as Entry[] | null)?.length ?? 0) > 0;
    // After the first page `from` is an entry just read: it must still be there.
    const reaches = first ? historyReaches(from, present, streamInfoFrom(res[1], res[2])) : present;
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
      if (!item || !conn.wants(item) || cursorHolds(cursor, id)) continue;
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

/** Wait until the client's socket has room; false when it stays full for `maxMs` or goes away. */
async function writable(conn: Connection, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  while (conn.congested()) {
    if (conn.isClosed() || conn.mode !== 'catching_up' || Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !conn.isClosed() && conn.mode === 'catching_up';
}

interface EventIdLookupOptions {
  redis: Redis;
  streamKey: string;
  /** Entries read per round trip. */
  pageSize?: number;
  /** Most entries looked at, newest first, before the event counts as gone. */
  maxScan?: number;
  /** After the newest copy of the event is found, how many older entries are searched for an earlier copy. */
  duplicateWindow?: number;
}

/** The positive integer in `text` (an SSE Last-Event-ID), or null. */
function parseEventId(text: string | null | undefined): number | null {
  if (!text || !/^[1-9]\d{0,15}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) ? n : null;
}

/** The event_id of a stream entry, read without parsing the whole event (the relay writes it as the event's last key). */
function entryEventId(fields: readonly string[]): number | null {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 'e') continue;
    const e = fields[i + 1];
    const at = e.lastIndexOf('"event_id":');
    if (at < 0) return null;
    const m = /^\d+/.exec(e.slice(at + 11, at + 30));
    return m ? Number(m[0]) : null;
  }
  return null;
}

/**
 * The stream id of the entry that carried event `eventId`, scanning back from the stream's end; null
 * when it is not among the newest `maxScan` entries. Event ids mostly grow along the stream, but a
 * relay retry can add an event again later (at-least-once): the oldest copy found within
 * `duplicateWindow` entries of the newest one is taken, so that what came between the copies is
 * replayed (possibly twice) rather than skipped.
 */
async function findEventEntry(eventId: number, opts: EventIdLookupOptions): Promise<StreamId | null> {
  const pageSize = opts.pageSize ?? 500;
  const maxScan = opts.maxScan ?? 10_000;
  const window = opts.duplicateWindow ?? 1000;
  let end = '+';
  let scanned = 0;
  let found: StreamId | null = null;
  let scannedAtFind = 0;
  while (scanned < maxScan) {
    const page = (await opts.redis.xrevrange(opts.streamKey, end, '-', 'COUNT', pageSize)) as Entry[];
    for (const [id, fields] of page) {
      scanned++;
      if (found !== null && scanned - scannedAtFind > window) return found;
      if (entryEventId(fields) === eventId) {
        if (found === null) scannedAtFind = scanned;
        found = id;
      }
    }
    if (page.length < pageSize) break;
    end = `(${page[page.length - 1][0]}`;
  }
  return found;
}

/**
 * Replay to a connection that last received event `eventId` (SSE Last-Event-ID): from the entry
 * that carried it, as a cursor resume. An unknown, malformed or too old id gets the
 * `resubscribed` reconcile, then live events.
 */
export async function resumeFromEventId(conn: Connection, eventIdText: string, opts: ResumeOptions & EventIdLookupOptions): Promise<ResumeOutcome> {
  const eventId = parseEventId(eventIdText);
  const at = eventId === null ? null : await findEventEntry(eventId, opts);
  if (conn.isClosed() || conn.mode !== 'catching_up') return 'abandoned';
  return resume(conn, at === null ? null : { upTo: at, also: [] }, opts);
}
