/**
 * Lifecycle events (spec: Events). Producers append to one Redis stream with publish(); the ws
 * process reads the stream and relays to clients. The stream is trimmed to EVENT_STREAM_MAXLEN
 * entries (approximately), which bounds the history a reconnecting client can resume from.
 */
import type { Redis } from './redis.js';

export const publicEventTypes = ['news.approved', 'news.tsunami', 'news.tsunami_promoted', 'news.sponsored'] as const;
export const staffEventTypes = ['news.submitted', 'news.scheduled', 'news.killed', 'news.retracted'] as const;
export const eventTypes = [...publicEventTypes, ...staffEventTypes] as const;
export type EventType = (typeof eventTypes)[number];

export interface SponsoredInfo {
  tier: string;
  ad_status: string;
  is_paid: boolean;
}

/** The event object of the spec's Frames section. */
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
}

export function isStaffOnly(type: EventType): boolean {
  return (staffEventTypes as readonly string[]).includes(type);
}

export function eventStreamKey(prefix: string): string {
  return `${prefix}:events:news`;
}

export class EventPublisher {
  constructor(
    private readonly redis: Redis,
    readonly streamKey: string,
    private readonly maxLen: number,
  ) {}

  /** Append one event; returns the stream entry id (the resume cursor of that event). */
  async publish(event: NewsEvent): Promise<string> {
    const id = await this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(this.maxLen), '*', 'e', JSON.stringify(event));
    return id as string;
  }
}
