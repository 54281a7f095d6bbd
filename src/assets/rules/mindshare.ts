/**
 * Mindshare (pure): an asset's share of stories, articles and engagement in a window, from the
 * per-asset counts the queries return. docs/assets.md states the definitions:
 *
 *   share = the asset's count / the sum of every asset's count in the window
 *
 * so the shares of all assets add up to 1 in each measure (an item naming two assets counts for
 * both). Engagement counts one unit per vote cast, yap written and click-through reader recorded in
 * the window on an article tagged with the asset. A total of 0 gives a share of 0.
 */

export const MINDSHARE_WINDOWS = [
  { key: '24h', hours: 24 },
  { key: '7d', hours: 7 * 24 },
  { key: '30d', hours: 30 * 24 },
] as const;
export type MindshareWindowKey = (typeof MINDSHARE_WINDOWS)[number]['key'];

/** Top stories kept per asset and window. */
export const MINDSHARE_TOP_STORIES = 3;
/** Leading assets kept per window (the intel report shows its top_n of them). */
const MINDSHARE_LEADERS = 50;

export interface AssetCounts {
  asset_id: string;
  symbol: string;
  name: string;
  stories: number;
  articles: number;
  votes: number;
  yaps: number;
  clicks: number;
}

export interface AssetStoryRow {
  asset_id: string;
  story_id: number;
  headline: string;
  /** The asset's tagged items in the story within the window. */
  items: number;
  member_count: number;
  source_count: number;
  last_seen_at: string;
}

interface Share {
  count: number;
  total: number;
  share: number;
}

export interface WindowTotals {
  stories: number;
  articles: number;
  engagement: number;
}

interface TopStory {
  id: number;
  headline: string;
  items: number;
  member_count: number;
  source_count: number;
  last_seen_at: string;
}

export interface AssetWindow {
  from: string;
  to: string;
  stories: Share;
  articles: Share;
  engagement: Share & { votes: number; yaps: number; clicks: number };
  top_stories: TopStory[];
}

export interface Leader {
  id: string;
  symbol: string;
  name: string;
  stories: Share;
  articles: Share;
  engagement: Share;
}

interface WindowResult {
  from: string;
  to: string;
  totals: WindowTotals;
  /** Assets with anything in the window, by stories share, then articles, then engagement, then id. */
  leaders: Leader[];
  byAsset: Map<string, AssetWindow>;
}

export function shareOf(count: number, total: number): Share {
  return { count, total, share: total > 0 ? Math.round((count / total) * 10_000) / 10_000 : 0 };
}

const engagementOf = (c: AssetCounts) => c.votes + c.yaps + c.clicks;

function topStoriesByAsset(rows: readonly AssetStoryRow[], top: number): Map<string, TopStory[]> {
  const out = new Map<string, TopStory[]>();
  const sorted = [...rows].sort((a, b) => b.items - a.items || b.last_seen_at.localeCompare(a.last_seen_at) || b.story_id - a.story_id);
  for (const r of sorted) {
    const list = out.get(r.asset_id) ?? [];
    if (list.length >= top) continue;
    list.push({ id: r.story_id, headline: r.headline, items: r.items, member_count: r.member_count, source_count: r.source_count, last_seen_at: r.last_seen_at });
    out.set(r.asset_id, list);
  }
  return out;
}

/** One window's shares of every asset with anything in it, its totals and its leaders. */
export function windowShares(
  window: { from: string; to: string },
  counts: readonly AssetCounts[],
  stories: readonly AssetStoryRow[],
  opts: { topStories?: number; leaders?: number } = {},
): WindowResult {
  const totals: WindowTotals = {
    stories: counts.reduce((s, c) => s + c.stories, 0),
    articles: counts.reduce((s, c) => s + c.articles, 0),
    engagement: counts.reduce((s, c) => s + engagementOf(c), 0),
  };
  const tops = topStoriesByAsset(stories, opts.topStories ?? MINDSHARE_TOP_STORIES);
  const byAsset = new Map<string, AssetWindow>();
  const leaders: Leader[] = [];
  for (const c of counts) {
    const entry = {
      stories: shareOf(c.stories, totals.stories),
      articles: shareOf(c.articles, totals.articles),
      engagement: shareOf(engagementOf(c), totals.engagement),
    };
    byAsset.set(c.asset_id, { ...window, ...entry, engagement: { ...entry.engagement, votes: c.votes, yaps: c.yaps, clicks: c.clicks }, top_stories: tops.get(c.asset_id) ?? [] });
    leaders.push({ id: c.asset_id, symbol: c.symbol, name: c.name, ...entry });
  }
  leaders.sort((a, b) => b.stories.count - a.stories.count || b.articles.count - a.articles.count || b.engagement.count - a.engagement.count || a.id.localeCompare(b.id));
  return { ...window, totals, leaders: leaders.slice(0, opts.leaders ?? MINDSHARE_LEADERS), byAsset };
}

/** An asset's window when it had nothing in it: zero counts against the window's totals. */
export function emptyWindow(window: { from: string; to: string; totals: WindowTotals }): AssetWindow {
  return {
    from: window.from,
    to: window.to,
    stories: shareOf(0, window.totals.stories),
    articles: shareOf(0, window.totals.articles),
    engagement: { ...shareOf(0, window.totals.engagement), votes: 0, yaps: 0, clicks: 0 },
    top_stories: [],
  };
}
