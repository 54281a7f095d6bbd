/**
 * Response schemas of mindshare: the `mindshare` field of GET /assets/{id}/ and the intel report's
 * `mindshare` section (definitions: docs/assets.md, src/assets/rules/mindshare.ts).
 */
import { z } from 'zod';
import { isoTimestamp } from '../platform/http/schemas.js';

const d = (description: string) => ({ description });
const int = (description: string) => z.number().int().meta(d(description));

const share = (what: string) =>
  z
    .object({
      count: int(`The asset's ${what} in the window`),
      total: int(`Every asset's ${what} in the window, summed (an item naming two assets counts for both)`),
      share: z.number().meta(d('count / total, 4 decimals; 0 when total is 0. The shares of all assets add up to 1')),
    })
    .meta(d(`Share of ${what}`));

const bounds = {
  from: isoTimestamp('Start of the window (exclusive)'),
  to: isoTimestamp('End of the window (inclusive): the computation time'),
};

const topStory = z.object({
  id: int('Story id (GET /api/v1/stories/{id}/)'),
  headline: z.string(),
  items: int("The asset's tagged members of the story seen in the window"),
  member_count: int('All members of the story'),
  source_count: int('Distinct sources of the story'),
  last_seen_at: isoTimestamp('When the story last gained a member'),
});

const assetWindow = z.object({
  ...bounds,
  stories: share('stories (stories with a member tagged with the asset and seen in the window)'),
  articles: share('articles (approved, not sponsored, published in the window)'),
  engagement: share('engagement (votes cast, yaps written and click-through readers recorded in the window, on articles tagged with the asset)').extend({
    votes: int('Votes cast in the window'),
    yaps: int('Yaps written in the window'),
    clicks: int('Click-through readers (signed-in, first click) recorded in the window'),
  }),
  top_stories: z.array(topStory).meta(d('Up to 3 stories with most of the asset’s tagged members in the window (ties: latest activity)')),
});

export const assetMindshareSchema = z
  .object({
    computed_at: isoTimestamp('When the asset-mindshare job computed it (every 5 minutes)'),
    windows: z.object({ '24h': assetWindow, '7d': assetWindow, '30d': assetWindow }),
  })
  .nullable()
  .meta({ id: 'AssetMindshare', description: 'The asset’s mindshare over 24 h, 7 d and 30 d; null before the first computation' });

const leaderWindow = z.object({
  ...bounds,
  totals: z.object({ stories: int('Stories, summed over assets'), articles: int('Articles, summed over assets'), engagement: int('Engagement units, summed over assets') }),
  assets: z
    .array(
      z.object({
        id: z.string(),
        symbol: z.string(),
        name: z.string(),
        stories: share('stories'),
        articles: share('articles'),
        engagement: share('engagement'),
      }),
    )
    .meta(d('Top `top_n` assets: most stories, then articles, then engagement, then id')),
});

export const mindshareLeadersSchema = z
  .object({
    computed_at: isoTimestamp('When the asset-mindshare job computed it'),
    windows: z.object({ '24h': leaderWindow, '7d': leaderWindow, '30d': leaderWindow }),
  })
  .nullable()
  .meta({
    id: 'MindshareLeaders',
    description:
      'The assets with the largest share of stories, articles and engagement over 24 h, 7 d and 30 d (platform-wide: not restricted by topics or hours); null before the first computation',
  });
