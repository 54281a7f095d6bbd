/**
 * The resume cursor carried by every batch frame (an additive field; the spec's clients ignore it).
 *
 * To a client it is an opaque string to send back as `?cursor=` when it reconnects. To the server it
 * says which events the client holds: every event visible to it with a stream id up to and
 * including `upTo`, plus the events in `also` (ids after `upTo`). `also` is needed because a
 * sponsored event is sent at once, ahead of an earlier pending batch: a client that drops right
 * after that frame holds the sponsored event but not the batch before it, and must get the batch,
 * and not the sponsored event again, when it resumes.
 *
 * Text form: `<upTo>` or `<upTo>_<also1>_<also2>...`. For a plain batch frame it is simply the
 * stream id of the frame's last event.
 */
import { compareIds, parseStreamId, type StreamId } from './stream-id.js';

export interface Cursor {
  upTo: StreamId;
  /** Ids after upTo the client already holds, ascending. */
  also: StreamId[];
}

/** A cursor never needs more than the sponsored events sent during one batch window. */
export const MAX_CURSOR_ALSO = 32;

export function encodeCursor(c: Cursor): string {
  return c.also.length === 0 ? c.upTo : [c.upTo, ...c.also].join('_');
}

/** The cursor in `text`, or null when it is malformed (the caller then treats history as lost). */
export function decodeCursor(text: string): Cursor | null {
  if (text.length === 0 || text.length > 42 * (MAX_CURSOR_ALSO + 1)) return null;
  const parts = text.split('_');
  if (parts.length > MAX_CURSOR_ALSO + 1) return null;
  const ids: StreamId[] = [];
  for (const p of parts) {
    const id = parseStreamId(p);
    if (!id) return null;
    ids.push(id);
  }
  const upTo = ids[0];
  const also = [...new Set(ids.slice(1))].filter((id) => compareIds(id, upTo) > 0).sort(compareIds);
  return { upTo, also };
}

/** True when the client described by `c` already holds the event with stream id `id`. */
export function cursorHolds(c: Cursor, id: StreamId): boolean {
  return compareIds(id, c.upTo) <= 0 || c.also.includes(id);
}
