/**
 * The frames of the spec's Events section, built once and shared by every connection that gets
 * them: an event is serialised once when it is read from the stream, a batch once per flush (per
 * class and filter), and the same Buffer is written to each socket. `wireOf` adds the WebSocket
 * framing once per frame as well (server frames are unmasked, so the bytes are the same for every
 * client): a fan-out to N sockets is N `socket.write` calls of one shared Buffer, with no
 * per-client framing work. `sseOf` is the same frame as Server-Sent Events messages, also built
 * once per frame.
 */
import type { EventAttrs } from '../../platform/events/filter.js';
import { clientEvent, isEventType, isStaffOnly, parseAttrs, readFields, type EventType } from '../../platform/events/events.js';
import { encodeCursor, type Cursor } from './cursor.js';
import type { StreamId } from './stream-id.js';

/** One event read from the stream. */
export interface StreamItem {
  id: StreamId;
  type: EventType;
  /** The spec's event object as JSON. */
  json: string;
  staffOnly: boolean;
  /** Sent at once in its own frame, ahead of a pending batch. */
  sponsored: boolean;
  /** The event log's id (the SSE `id:`), null for an entry without one. */
  eventId: number | null;
  /** What filters match on (stream field `a`, never sent to clients); null for events not about an article. */
  attrs: EventAttrs | null;
}

export type ReconcileReason = 'backlog' | 'resubscribed';

export interface BatchFrame {
  kind: 'batch';
  /** The JSON payload. */
  data: Buffer;
  /** The payload framed as one unmasked WebSocket text frame (set by wireOf, once). */
  wire?: Buffer;
  /** The events as Server-Sent Events messages (set by sseOf, once). */
  sse?: Buffer;
  items: readonly StreamItem[];
  /** Whether any of the items is staff-only (computed once: every public connection asks). */
  staffOnly: boolean;
  cursor: Cursor;
  t: number;
}

interface ControlFrame {
  kind: 'control';
  data: Buffer;
  wire?: Buffer;
  /** The frame on an SSE stream. */
  sse: Buffer;
}

export type OutFrame = BatchFrame | ControlFrame;

/**
 * The item for a stream entry (src/platform/events/events.ts, "Stream entries"), or null when the entry is not a well-formed
 * event. An entry the relay made ready (field `t`) is taken as it is: `e` is already the JSON
 * clients get and `a` is normalised, so neither is parsed beyond `a`'s lists. An older entry's
 * payload is projected onto the spec's fields here. `a` is never sent.
 */
export function itemFromEntry(id: StreamId, fields: readonly string[]): StreamItem | null {
  const f = readFields(fields);
  if (f.e === undefined) return null;
  if (f.t !== undefined) {
    if (!isEventType(f.t)) return null;
    const n = f.i === undefined ? null : Number(f.i);
    return item(id, f.t, f.e, n !== null && Number.isSafeInteger(n) ? n : null, f.a === undefined ? null : parseAttrs(f.a, true));
  }
  const ev = clientEvent(f.e);
  if (!ev) return null;
  return item(id, ev.type, ev.json, ev.eventId, f.a === undefined ? null : parseAttrs(f.a, false));
}

function item(id: StreamId, type: EventType, json: string, eventId: number | null, attrs: EventAttrs | null): StreamItem {
  return { id, type, json, staffOnly: isStaffOnly(type), sponsored: type === 'news.sponsored', eventId, attrs };
}

export function unixSeconds(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000);
}

/** `{events: [...], t, cursor}`; the cursor is the additive resume field. */
export function batchFrame(items: readonly StreamItem[], cursor: Cursor, t: number): BatchFrame {
  let body = '{"events":[';
  let staffOnly = false;
  for (let i = 0; i < items.length; i++) {
    body += (i ? ',' : '') + items[i].json;
    staffOnly ||= items[i].staffOnly;
  }
  body += `],"t":${t},"cursor":"${encodeCursor(cursor)}"}`;
  return { kind: 'batch', data: Buffer.from(body), items, staffOnly, cursor, t };
}

/** On SSE a heartbeat is a comment line: EventSource ignores it, proxies see traffic. */
export const heartbeatFrame: ControlFrame = { kind: 'control', data: Buffer.from('{"type":"heartbeat"}'), sse: Buffer.from(': hb\n\n') };

/** On SSE a reconcile is a named event (`event: reconcile`) with the WebSocket frame's JSON as data, and no `id:`. */
function reconcileControl(reason: ReconcileReason): ControlFrame {
  const json = `{"type":"reconcile","reason":"${reason}"}`;
  return { kind: 'control', data: Buffer.from(json), sse: Buffer.from(`event: reconcile\ndata: ${json}\n\n`) };
}

const reconcileFrames: Record<ReconcileReason, ControlFrame> = {
  backlog: reconcileControl('backlog'),
  resubscribed: reconcileControl('resubscribed'),
};

export function reconcileFrame(reason: ReconcileReason): ControlFrame {
  return reconcileFrames[reason];
}

/**
 * The frame as bytes on the wire: RFC 6455 section 5.2 header (FIN, opcode 1 = text, no mask,
 * 7/16/64-bit payload length) followed by the payload. Computed once and cached on the frame.
 */
export function wireOf(frame: OutFrame): Buffer {
  if (frame.wire) return frame.wire;
  const n = frame.data.length;
  const headerLen = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const wire = Buffer.allocUnsafe(headerLen + n);
  wire[0] = 0x81;
  if (n < 126) {
    wire[1] = n;
  } else if (n < 65_536) {
    wire[1] = 126;
    wire.writeUInt16BE(n, 2);
  } else {
    wire[1] = 127;
    wire.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    wire.writeUInt32BE(n >>> 0, 6);
  }
  frame.data.copy(wire, headerLen);
  frame.wire = wire;
  return wire;
}

/**
 * The frame as Server-Sent Events: one message per event, `id: <event_id>` and `data: <event JSON>`
 * (the default `message` type; the event's own `type` is in the data). JSON text never holds a raw
 * line break, so each event is one data line. Computed once and cached on the frame.
 */
export function sseOf(frame: OutFrame): Buffer {
  if (frame.kind === 'control') return frame.sse;
  if (frame.sse) return frame.sse;
  let text = '';
  for (const item of frame.items) text += `${item.eventId === null ? '' : `id: ${item.eventId}\n`}data: ${item.json}\n\n`;
  frame.sse = Buffer.from(text);
  return frame.sse;
}
