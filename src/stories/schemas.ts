/** The stories API's shapes (documented in the OpenAPI document from these schemas). */
import { z } from 'zod';
import { isoTimestamp } from '../platform/http/schemas.js';

const storySchema = z
  .object({
    id: z.number().int(),
    headline: z.string().meta({ description: "The representative headline: the first member's (copies aside)" }),
    first_seen_at: isoTimestamp('When the first member was published (its claimed time when plausible, else when the service saw it)'),
    last_seen_at: isoTimestamp('When the latest member was published'),
    member_count: z.number().int().meta({ description: 'Articles and wire items in the story, copies included' }),
    source_count: z
      .number()
      .int()
      .meta({ description: 'Distinct independent sources: a syndicated copy (same URL or slug, or the same headline from another host) does not count' }),
    locked: z.boolean().meta({ description: 'An editor merged or split it: the assigner never undoes that' }),
  })
  .meta({ id: 'Story' });

const storyMemberSchema = z
  .object({
    kind: z.enum(['article', 'wire']),
    id: z.number().int().meta({ description: 'The article id (GET /api/v1/news/{id}/) or the wire item id' }),
    headline: z.string(),
    url: z.string().nullable(),
    source: z.string(),
    first_seen_at: isoTimestamp('Publication time (claimed when plausible, else observed)'),
    copy: z.boolean().meta({ description: 'A copy of another member (syndication), not an independent source' }),
    first: z.boolean().meta({ description: 'The member that reported the story first' }),
  })
  .meta({ id: 'StoryMember' });

export const storyDetailSchema = storySchema.extend({ members: z.array(storyMemberSchema) }).meta({ id: 'StoryDetail' });

export const storyPageSchema = z
  .object({
    count: z.number().int().meta({ description: 'Total stories over all pages' }),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(storySchema),
  })
  .meta({ id: 'StoryPage' });
