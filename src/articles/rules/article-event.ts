import type { EventType, NewsEvent, SponsoredInfo } from '../../platform/events/events.js';
import { slugify } from '../../platform/url/slug.js';

export interface ArticleEventSource {
  id: number;
  slug: string;
  status: string;
  headline: string;
  origin: string;
  created_at: Date;
  published_at: Date | null;
  sponsored: unknown;
  /** The item's story as of the event (null or absent: none yet). */
  story_id?: number | null;
}

/** Build the spec's event object from an article row. date_posted is the publish time once published; story_id (additive) null until the story-assign job has run. */
export function articleEvent(type: EventType, a: ArticleEventSource, previousStatus?: string): NewsEvent {
  const event: NewsEvent = {
    type,
    id: a.id,
    slug: a.slug,
    status: a.status,
    headline: a.headline,
    date_posted: (a.published_at ?? a.created_at).toISOString(),
    origin: a.origin,
    sponsored: (a.sponsored as SponsoredInfo | null) ?? null,
    story_id: a.story_id ?? null,
  };
  if (previousStatus !== undefined && previousStatus !== a.status) event.previous_status = previousStatus;
  return event;
}

/** news.tsunami for a newly ingested wire item: `id` is the wire item's id, status `ingested`. */
export function tsunamiEvent(w: { id: number; title: string; ingested_at: Date }): NewsEvent {
  return articleEvent('news.tsunami', {
    id: w.id,
    slug: slugify(w.title),
    status: 'ingested',
    headline: w.title,
    origin: 'tsunami',
    created_at: w.ingested_at,
    published_at: null,
    sponsored: null,
  });
}
