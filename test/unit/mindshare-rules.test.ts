import { describe, expect, it } from 'vitest';
import { emptyWindow, shareOf, windowShares, type AssetCounts, type AssetStoryRow } from '../../src/assets/rules/mindshare.js';

const W = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };
const counts = (asset_id: string, c: Partial<AssetCounts>): AssetCounts => ({
  asset_id,
  symbol: asset_id.toUpperCase(),
  name: asset_id,
  stories: 0,
  articles: 0,
  votes: 0,
  yaps: 0,
  clicks: 0,
  ...c,
});
const storyRow = (asset_id: string, story_id: number, items: number, last: string): AssetStoryRow => ({
  asset_id,
  story_id,
  items,
  headline: `story ${story_id}`,
  member_count: items,
  source_count: 1,
  last_seen_at: last,
});

describe('mindshare shares', () => {
  it('share = count / the sum over assets, 4 decimals; 0 when nothing was counted', () => {
    expect(shareOf(1, 3)).toEqual({ count: 1, total: 3, share: 0.3333 });
    expect(shareOf(2, 3).share).toBe(0.6667);
    expect(shareOf(0, 0)).toEqual({ count: 0, total: 0, share: 0 });
  });

  it('the shares of every asset add up to 1 in each measure, engagement counting votes, yaps and clicks alike', () => {
    const r = windowShares(
      W,
      [counts('btc', { stories: 2, articles: 3, votes: 4, yaps: 1, clicks: 1 }), counts('eth', { stories: 1, articles: 1, clicks: 2 }), counts('sol', { stories: 1 })],
      [],
    );
    expect(r.totals).toEqual({ stories: 4, articles: 4, engagement: 8 });
    const btc = r.byAsset.get('btc')!;
    expect([btc.stories.share, btc.articles.share, btc.engagement.share]).toEqual([0.5, 0.75, 0.75]);
    expect(btc.engagement).toMatchObject({ votes: 4, yaps: 1, clicks: 1, count: 6 });
    const sum = (k: 'stories' | 'articles' | 'engagement') => [...r.byAsset.values()].reduce((s, a) => s + a[k].count, 0);
    expect([sum('stories'), sum('articles'), sum('engagement')]).toEqual([4, 4, 8]);
    expect(r.byAsset.get('sol')!.engagement.share).toBe(0);
  });

  it('leaders rank by stories, then articles, then engagement, then id, cut to the limit', () => {
    const r = windowShares(
      W,
      [counts('b', { stories: 1, articles: 2 }), counts('a', { stories: 1, articles: 2 }), counts('c', { stories: 3 }), counts('d', { stories: 1, articles: 2, votes: 5 })],
      [],
      { leaders: 3 },
    );
    expect(r.leaders.map((l) => l.id)).toEqual(['c', 'd', 'a']);
  });

  it('top stories: most tagged items first, then the latest activity, at most the limit per asset', () => {
    const rows = [
      storyRow('btc', 1, 1, '2026-01-01T05:00:00.000Z'),
      storyRow('btc', 2, 4, '2026-01-01T01:00:00.000Z'),
      storyRow('btc', 3, 1, '2026-01-01T09:00:00.000Z'),
      storyRow('btc', 4, 1, '2026-01-01T02:00:00.000Z'),
      storyRow('eth', 1, 1, '2026-01-01T05:00:00.000Z'),
    ];
    const r = windowShares(W, [counts('btc', { stories: 4 }), counts('eth', { stories: 1 })], rows, { topStories: 3 });
    expect(r.byAsset.get('btc')!.top_stories.map((s) => s.id)).toEqual([2, 3, 1]);
    expect(r.byAsset.get('eth')!.top_stories.map((s) => s.id)).toEqual([1]);
  });

  it('an asset absent from a window gets zero against that window’s totals', () => {
    const w = emptyWindow({ ...W, totals: { stories: 5, articles: 7, engagement: 0 } });
    expect(w).toEqual({
      ...W,
      stories: { count: 0, total: 5, share: 0 },
      articles: { count: 0, total: 7, share: 0 },
      engagement: { count: 0, total: 0, share: 0, votes: 0, yaps: 0, clicks: 0 },
      top_stories: [],
    });
  });
});
