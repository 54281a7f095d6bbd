/**
 * When events are lost, and so when a `{type: "reconcile", reason: "resubscribed"}` frame is due.
 *
 * The stream is trimmed from its head only (XADD MAXLEN ~, XTRIM). So if the entry we read last is
 * still in the stream, every entry after it is still there too and XREAD from it loses nothing,
 * however long the connection to Redis was down. If that entry is gone, entries after it may have
 * gone with it (trimmed while we were not reading, or the stream was lost with a Redis restart):
 * that is a loss, even when we cannot count what was lost.
 *
 * A position that is not an entry (the reader started on an empty or missing stream) cannot be
 * checked that way. The stream was empty there, so every entry added since is either still in
 * it or was deleted unread: Redis 7's `entries-added` minus the stream's length tells which.
 * (`max-deleted-entry-id` would not: trimming does not update it.)
 */
import { compareIds, ZERO_ID, type StreamId } from './stream-id.js';

export interface StreamInfo {
  lastGeneratedId: StreamId;
  length: number;
  /** Entries ever added (Redis 7+), null when Redis does not report it. */
  entriesAdded: number | null;
  /** Greatest id removed by XDEL (Redis 7+; trimming does not set it), null when not reported. */
  maxDeletedId: StreamId | null;
  firstEntryId: StreamId | null;
}

/** XINFO STREAM's flat reply ([name, value, ...]) as StreamInfo. */
export function parseStreamInfo(reply: unknown): StreamInfo {
  const flat = reply as unknown[];
  const get = (name: string) => {
    for (let i = 0; i + 1 < flat.length; i += 2) if (flat[i] === name) return flat[i + 1];
    return undefined;
  };
  const first = get('first-entry') as [string, string[]] | null | undefined;
  const maxDeleted = get('max-deleted-entry-id');
  const added = get('entries-added');
  return {
    lastGeneratedId: String(get('last-generated-id') ?? ZERO_ID),
    length: Number(get('length') ?? 0),
    entriesAdded: added === undefined || added === null ? null : Number(added),
    maxDeletedId: typeof maxDeleted === 'string' ? maxDeleted : null,
    firstEntryId: first ? first[0] : null,
  };
}

/**
 * XINFO STREAM's reply read from a pipeline or MULTI that sent `EXISTS key` just before it: null when
 * the stream does not exist (XINFO fails on a missing key; EXISTS says so without reading the error's
 * text), the parsed info otherwise. Any other failure is thrown.
 */
export function streamInfoFrom(exists: [Error | null, unknown], info: [Error | null, unknown]): StreamInfo | null {
  if (!info[0]) return parseStreamInfo(info[1]);
  if (!exists[0] && exists[1] === 0) return null;
  throw info[0];
}

/** Where the reader reads from next. */
export type ReaderPosition =
  /** An entry the reader received (or the stream's last entry when it started): its presence can be checked. */
  | { id: StreamId; anchored: true }
  /** The end of a stream that had no entries then; `addedBefore` is its entries-added at that moment. */
  | { id: StreamId; anchored: false; addedBefore: number | null };

interface ReadObservation {
  position: ReaderPosition;
  /** Entries XREAD returned from the position. */
  entries: number;
  /** Whether the position's entry was still in the stream right after the read (anchored only). */
  positionPresent: boolean | null;
  /** XINFO STREAM right after the read: undefined when not asked, null when the stream does not exist. */
  info: StreamInfo | null | undefined;
}

interface ReadVerdict {
  /** Events after the position were or may have been deleted before the reader saw them. */
  lost: boolean;
  /**
   * After a loss with nothing read, the reader takes a new position at the stream's end, so the
   * same loss is not reported again and a stream that restarted behind the position is followed
   * rather than waited on forever.
   */
  reposition: boolean;
}

/** Whether judging this read needs XINFO STREAM. */
export function needsInfo(o: Omit<ReadObservation, 'info'>): boolean {
  return !o.position.anchored;
}

export function judgeRead(o: ReadObservation): ReadVerdict {
  const pos = o.position;
  let lost: boolean;
  if (pos.anchored) {
    lost = o.positionPresent === false;
  } else if (o.info === undefined) {
    lost = false;
  } else if (o.info === null) {
    // The stream is gone (deleted, or Redis restarted without persistence).
    lost = pos.id !== ZERO_ID;
  } else {
    const restartedBehind = compareIds(o.info.lastGeneratedId, pos.id) < 0;
    const { entriesAdded, length } = o.info;
    const recreated = entriesAdded !== null && pos.addedBefore !== null && entriesAdded < pos.addedBefore;
    const deletedUnread = entriesAdded !== null && pos.addedBefore !== null && entriesAdded - pos.addedBefore > length;
    lost = restartedBehind || recreated || deletedUnread;
  }
  return { lost, reposition: lost && o.entries === 0 };
}

/**
 * Whether the stream still holds every entry after `upTo` (a resume cursor), so that replaying
 * from it loses nothing. `present`: the entry `upTo` itself is in the stream. A cursor position
 * that is not an entry (see Batcher) is accepted when it lies inside the stream's range: head
 * trimming never removes an entry after the first one left, and XDEL is caught by
 * max-deleted-entry-id.
 */
export function historyReaches(upTo: StreamId, present: boolean, info: StreamInfo | null): boolean {
  if (present) return true;
  if (!info) return false;
  const vsEnd = compareIds(upTo, info.lastGeneratedId);
  if (vsEnd === 0) return true; // nothing was ever added after it
  if (vsEnd > 0) return false; // a cursor from another (older) incarnation of the stream
  if (info.maxDeletedId !== null && compareIds(info.maxDeletedId, upTo) > 0) return false;
  return info.firstEntryId !== null && compareIds(upTo, info.firstEntryId) >= 0;
}
