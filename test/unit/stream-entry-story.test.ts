import { describe, expect, it } from 'vitest';
import { articleEvent } from '../../src/articles/rules/article-event.js';
import { clientEvent } from '../../src/platform/events/events.js';

const row = { id: 5, slug: 's', status: 'approved', headline: 'h', origin: 'manual', created_at: new Date('2026-01-01T00:00:00Z'), published_at: null, sponsored: null };

describe('story_id on the event object', () => {
  it('articleEvent carries the row story_id, null when the row has none', () => {
    expect(articleEvent('news.approved', { ...row, story_id: 12 }).story_id).toBe(12);
    expect(articleEvent('news.approved', row).story_id).toBeNull();
  });

  it('clientEvent passes story_id on when recorded (integer or null) and leaves it out otherwise', () => {
    const out = (p: Record<string, unknown>) => JSON.parse(clientEvent(JSON.stringify({ type: 'news.approved', id: 5, ...p }))!.json) as Record<string, unknown>;
    expect(out({ story_id: 12, event_id: 3 })).toMatchObject({ story_id: 12, event_id: 3 });
    expect(out({ story_id: null })).toHaveProperty('story_id', null);
    expect(out({})).not.toHaveProperty('story_id');
    expect(out({ story_id: '12; drop' })).not.toHaveProperty('story_id');
    expect(out({ story_id: 1.5 })).not.toHaveProperty('story_id');
  });
});
