/**
 * Lifecycle events (spec: Events) and the project's internal events.
 *
 * Every event is first written to the event log in PostgreSQL, in the same transaction as the change
 * it reports (src/queries/event-log.ts recordEvents). The relay (src/relay/relay.ts) then appends the
 * client-visible ones to one Redis stream with EventPublisher; the ws process reads the stream and
 * relays to clients. The stream is trimmed to EVENT_STREAM_MAXLEN entries (approximately), which
 * bounds the history a reconnecting client can resume from; GET /api/v1/events/ reads the log itself.
 */
import type { Redis } from './redis.js';
import { eventStreamKey } from './redis-keys.js';

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
 *    top_tldr, so feed pages holding it change (and their ETags with them).
 */
const internalEventTypes = ['article.edited', 'article.yap_posted', 'feed.reranked', 'article.voted'] as const;
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
  /** The event log's id: strictly increasing, gap-tolerant; duplicates (at-least-once) carry the same id. */
  event_id?: number;
}

export function isStaffOnly(type: EventType): boolean {
  return (staffEventTypes as readonly string[]).includes(type);
}

export function visibilityOf(type: AnyEventType): Visibility {
  if ((internalEventTypes as readonly string[]).includes(type)) return 'internal';
  return isStaffOnly(type as EventType) ? 'staff' : 'public';
}

/** The stream's key (src/redis-keys.ts); re-exported because every process and tool that reads the stream imports it from here. */
export { eventStreamKey };

export class EventPublisher {
  constructor(
    private readonly redis: Redis,
    readonly streamKey: string,
    private readonly maxLen: number,
  ) {}

  /** Append one event; returns the stream entry id (the resume cursor of that event). Tests and drills feed the ws process with it. */
  async publish(event: NewsEvent): Promise<string> {
    const id = await this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', 'e', JSON.stringify(event));
    return id as string;
  }

  /**
   * Append events given as JSON text, in order, in one pipeline (the relay). Field `e` is the event
   * clients receive; `a`, when given, its subscription attributes ({tags, token_addresses,
   * token_symbols}), which the ws process filters on and never sends. Throws when any XADD failed.
   */
  async publishJson(events: readonly (string | { e: string; a: string | null })[]): Promise<void> {
    if (events.length === 0) return;
    const pipe = this.redis.pipeline();
    for (const ev of events) {
      if (typeof ev === 'string' || ev.a === null) pipe.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', 'e', typeof ev === 'string' ? ev : ev.e);
      else pipe.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', 'e', ev.e, 'a', ev.a);
    }
    const results = await pipe.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('XADD pipeline returned nothing');
  }
}
