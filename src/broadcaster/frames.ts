/**
 * The frames of the spec's Events section, built once and shared by every connection that gets
 * them: an event is serialised once when it is read from the stream, a batch once per flush (per
 * class and filter), and the same Buffer is written to each socket. `wireOf` adds the WebSocket
 * framing once per frame as well (server frames are unmasked, so the bytes are the same for every
 * client): a fan-out to N sockets is N `socket.write` calls of one shared Buffer, with no
 * per-client framing work. `sseOf` is the same frame as Server-Sent Events messages, also built
 * once per frame.
 */
import { normalizeAttrs, type EventAttrs } from '../domain/event-filter.js';
import { eventTypes, isStaffOnly, type EventType, type NewsEvent } from '../events.js';
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

const knownTypes = new Set<string>(eventTypes);

/**
 * The item for a stream entry written by EventPublisher (field `e` holds the event JSON, `a` its
 * filter attributes), or null when the entry is not a well-formed event. Only the spec's fields
 * (and event_id) are passed on; `a` is parsed here, once per entry, and never sent.
 */
export function itemFromEntry(id: StreamId, fields: readonly string[]): StreamItem | null {
  let raw: string | undefined;
  let rawAttrs: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'e') raw = fields[i + 1];
    else if (fields[i] === 'a') rawAttrs = fields[i + 1];
  }
  if (raw === undefined) return null;
  let e: Partial<NewsEvent>;
  try {
    e = JSON.parse(raw) as Partial<NewsEvent>;
  } catch {
    return null;
  }
  if (!e || typeof e !== 'object' || typeof e.type !== 'string' || !knownTypes.has(e.type)) return null;
  const event: Record<string, unknown> = {
    type: e.type,
    id: e.id,
    slug: e.slug,
    status: e.status,
    headline: e.headline,
    date_posted: e.date_posted,
    origin: e.origin,
  };
  if (e.previous_status !== undefined) event.previous_status = e.previous_status;
  event.sponsored = e.sponsored ?? null;
  // Additive: the event log's id, by which a client drops the duplicates of at-least-once delivery.
  const eventId = typeof e.event_id === 'number' && Number.isSafeInteger(e.event_id) ? e.event_id : null;
  if (eventId !== null) event.event_id = eventId;
  let attrs: EventAttrs | null = null;
  if (rawAttrs !== undefined) {
    try {
      attrs = normalizeAttrs(JSON.parse(rawAttrs));
    } catch {
      attrs = null; // unreadable attributes: the event matches only filters without attribute kinds
    }
  }
  return {
    id,
    type: e.type,
    json: JSON.stringify(event),
    staffOnly: isStaffOnly(e.type),
    sponsored: e.type === 'news.sponsored',
    eventId,
    attrs,
  };
}

export function unixSeconds(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000);
}

/** `{events: [...], t, cursor}`; the cursor is the additive resume field. */
export function batchFrame(items: readonly StreamItem[], cursor: Cursor, t: number): BatchFrame {
  let body = '{"events":[';
  for (let i = 0; i < items.length; i++) body += (i ? ',' : '') + items[i].json;
  body += `],"t":${t},"cursor":"${encodeCursor(cursor)}"}`;
  return { kind: 'batch', data: Buffer.from(body), items, cursor, t };
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
