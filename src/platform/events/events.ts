/**
 * Lifecycle events (spec: Events) and the project's internal events.
 *
 * Every event is first written to the event log in PostgreSQL, in the same transaction as the change
 * it reports (src/platform/events/log.ts recordEvents). The relay (src/relay/relay.ts) then appends the
 * client-visible ones to one Redis stream with EventPublisher; the ws process reads the stream and
 * relays to clients. The stream is trimmed to EVENT_STREAM_MAXLEN entries (approximately), which
 * bounds the history a reconnecting client can resume from; GET /api/v1/events/ reads the log itself.
 */
import { normalizeAttrs, type EventAttrs } from './filter.js';
import type { Redis } from '../redis.js';
import { eventStreamKey } from '../redis-keys.js';

export const publicEventTypes = ['news.approved', 'news.tsunami', 'news.tsunami_promoted', 'news.sponsored'] as const;
export const staffEventTypes = ['news.submitted', 'news.scheduled', 'news.killed', 'news.retracted'] as const;
/** The client-visible event types (the spec's table). */
export const eventTypes = [...publicEventTypes, ...staffEventTypes] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Events that never leave the server (not on the stream, not on GET /events/): changes that are not
 * lifecycle transitions but still have side effects the relay performs (the feed cache, hot scores).
 *  - article.edited: an editor's edit or a fetched page title changed what the feed shows;
 *  - article.yap_posted: a yap changed yap_count / top_tldr, and the hot score is due a recompute;
 *  - feed.reranked: a hot-score run rewrote scores (article_id null when it covered many articles);
 *  - article.voted: a vote on the article or on one of its yaps changed vote_count / votes /
 *    top_tldr, so feed pages holding it change (and their ETags with them);
 *  - story.assigned: an article or wire item joined a story (src/stories/), so the feed's story_id
 *    of an article changes (article_id null for a wire item).
 */
const internalEventTypes = ['article.edited', 'article.yap_posted', 'feed.reranked', 'article.voted', 'story.assigned'] as const;
export type InternalEventType = (typeof internalEventTypes)[number];
export type AnyEventType = EventType | InternalEventType;

export type Visibility = 'public' | 'staff' | 'internal';

export interface SponsoredInfo {
  tier: string;
  ad_status: string;
  is_paid: boolean;
}

/** The event object of the spec's Frames section, plus the additive `event_id` once it is logged. */
export interface NewsEvent {
  type: EventType;
  id: number;
  slug: string;
  status: string;
  headline: string;
  date_posted: string;
  origin: string;
  previous_status?: string;
  sponsored: SponsoredInfo | null;
  /**
   * Additive: the story (src/stories/) of the article or wire item as of the event's commit, null
   * while it has none. Events recorded before the field existed do not carry it.
   */
  story_id?: number | null;
  /** The event log's id: strictly increasing, gap-tolerant; duplicates (at-least-once) carry the same id. */
  event_id?: number;
}

const staffOnlyTypes = new Set<string>(staffEventTypes);

export function isStaffOnly(type: EventType): boolean {
  return staffOnlyTypes.has(type);
}

/**
 * Who reads staff-only events: a signed-in session (access-token cookie or Bearer JWT) of an account
 * with one of these roles. Editors work the review queue from these events, so they see them on the
 * stream, the SSE stream and GET /api/v1/events/ alike. An API key never does, whatever its account:
 * keys are long-lived credentials handed to scripts and third parties.
 */
const STAFF_EVENT_ROLES = ['editor', 'staff'] as const;

/** Whether an account with these roles, signed in with a session, sees the staff-only events. */
export function rolesSeeStaffEvents(roles: readonly string[]): boolean {
  return STAFF_EVENT_ROLES.some((r) => roles.includes(r));
}

export function visibilityOf(type: AnyEventType): Visibility {
  if ((internalEventTypes as readonly string[]).includes(type)) return 'internal';
  return isStaffOnly(type as EventType) ? 'staff' : 'public';
}

/** The stream's key (src/platform/redis-keys.ts); re-exported because every process and tool that reads the stream imports it from here. */
export { eventStreamKey };

export class EventPublisher {
  constructor(
    private readonly redis: Redis,
    readonly streamKey: string,
    private readonly maxLen: number,
  ) {}

  /** Append one event; returns the stream entry id (the resume cursor of that event). Tests and drills feed the ws process with it. */
  async publish(event: NewsEvent): Promise<string> {
    const id = await this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', ...entryFields(JSON.stringify(event), null));
    return id as string;
  }

  /**
   * Append events given as JSON text (the recorded payload; `a`, when given, the article's
   * subscription attributes {tags, token_addresses, token_symbols}), in order, in one pipeline (the
   * relay). Each entry is written ready to send ("Stream entries" below): the event as clients get it
   * and its attributes normalised, so that no ws process parses it again. Throws when any XADD failed.
   */
  async publishJson(events: readonly (string | { e: string; a: string | null })[]): Promise<void> {
    if (events.length === 0) return;
    const pipe = this.redis.pipeline();
    for (const ev of events) {
      const fields = typeof ev === 'string' ? entryFields(ev, null) : entryFields(ev.e, ev.a);
      pipe.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', ...fields);
    }
    const results = await pipe.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('XADD pipeline returned nothing');
  }
}

/*
 * Stream entries: what the relay writes to the lifecycle-event stream (`<QUEUE_PREFIX>:events:news`)
 * (EventPublisher, above) and what the ws process reads back (src/stream/rules/frames.ts).
 *
 * An entry's fields, as the relay writes them:
 *  - `e`: the event as clients receive it: the spec's event object plus `event_id`, as JSON, with
 *    nothing else of the recorded payload (`clientEvent`);
 *  - `t`: its type. Its presence says the entry is ready to send: `e` as above and `a` normalised,
 *    so a reader passes `e` on as it is, without parsing it;
 *  - `i`: its event_id, in decimal (absent when it has none);
 *  - `a`: for an event about an article, the article's subscription attributes
 *    `{token_addresses, token_symbols, tags}` as of the event's commit, normalised as filters compare
 *    them (`normalizeAttrs`). Never sent to clients.
 * The relay does this work once per event, so that each ws process only reads it. An entry without
 * `t` (one written before 2026-11-25, or by an older relay during a deploy) holds the payload as
 * recorded: a reader projects `e` with `clientEvent` and normalises `a` itself. An entry whose `e`
 * is not an event of a known type is written as it came, without `t`, and readers skip it.
 */
const knownTypes = new Set<string>(eventTypes);

export function isEventType(t: string): t is EventType {
  return knownTypes.has(t);
}

/** An event as clients receive it (the `e` of a ready entry). */
interface ClientEvent {
  type: EventType;
  /** The spec's event object, plus event_id, as JSON. */
  json: string;
  eventId: number | null;
}

/**
 * The event clients receive for a recorded payload (JSON text): the spec's fields in the spec's
 * order, `sponsored` null when absent, and the additive `event_id`; null when the text is not an
 * event of a known type.
 */
export function clientEvent(raw: string): ClientEvent | null {
  let e: Partial<NewsEvent>;
  try {
    e = JSON.parse(raw) as Partial<NewsEvent>;
  } catch {
    return null;
  }
  if (!e || typeof e !== 'object' || typeof e.type !== 'string' || !isEventType(e.type)) return null;
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
  // Additive: passed on when the recorded payload has it (an integer or null), so that the stream carries what the log holds.
  if (e.story_id === null || (typeof e.story_id === 'number' && Number.isSafeInteger(e.story_id))) event.story_id = e.story_id;
  // Additive: the event log's id, by which a client drops the duplicates of at-least-once delivery.
  const eventId = typeof e.event_id === 'number' && Number.isSafeInteger(e.event_id) ? e.event_id : null;
  if (eventId !== null) event.event_id = eventId;
  return { type: e.type, json: JSON.stringify(event), eventId };
}

/**
 * The fields of the stream entry for a recorded event: `payload` its JSON, `attrs` the article's
 * attributes as JSON (event_log.attrs) or null. Unreadable attributes are left out (the event then
 * matches only filters without attribute kinds, as one without attributes).
 */
export function entryFields(payload: string, attrs: string | null): string[] {
  const ev = clientEvent(payload);
  if (!ev) return attrs === null ? ['e', payload] : ['e', payload, 'a', attrs];
  const fields = ['e', ev.json, 't', ev.type];
  if (ev.eventId !== null) fields.push('i', String(ev.eventId));
  if (attrs !== null) {
    const normalized = parseAttrs(attrs, false);
    if (normalized) fields.push('a', JSON.stringify(normalized));
  }
  return fields;
}

/** A stream entry as its fields say (field names and values alternate, as XREAD returns them). */
interface EntryFields {
  e?: string;
  t?: string;
  i?: string;
  a?: string;
}

export function readFields(fields: readonly string[]): EntryFields {
  const out: EntryFields = {};
  for (let k = 0; k + 1 < fields.length; k += 2) {
    const name = fields[k];
    if (name === 'e' || name === 't' || name === 'i' || name === 'a') out[name] = fields[k + 1];
  }
  return out;
}

/**
 * Field `a` for matching: `normalized` when the entry is ready (the relay normalised it; the lists
 * are taken as they are), otherwise normalised here. Null when unreadable.
 */
export function parseAttrs(raw: string, normalized: boolean): EventAttrs | null {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!normalized) return normalizeAttrs(v);
  if (!v || typeof v !== 'object') return null;
  const r = v as Record<string, unknown>;
  const base = { token_addresses: listOf(r.token_addresses), token_symbols: listOf(r.token_symbols), tags: listOf(r.tags) };
  return Array.isArray(r.assets) ? { ...base, assets: r.assets as string[] } : base;
}

const none: readonly string[] = [];
const listOf = (v: unknown): readonly string[] => (Array.isArray(v) ? (v as string[]) : none);
