/** The tools' input schemas: the REST routes' own zod objects, looked up by operationId (so the two cannot drift). */
import { z } from 'zod';
import type { RouteDef } from '../platform/http/route.js';

function schemaOf(routes: RouteDef[], operationId: string, part: 'query' | 'body' | 'params'): z.ZodObject {
  const def = routes.find((r) => r.operationId === operationId);
  const s = def?.[part];
  if (!(s instanceof z.ZodObject)) throw new Error(`MCP: route ${operationId} has no ${part} object schema`);
  return s;
}

export function toolSchemas(routes: RouteDef[]) {
  const articleParams = schemaOf(routes, 'getArticle', 'params');
  const yapsQuery = schemaOf(routes, 'listYaps', 'query');
  return {
    // The feed tool keeps its documented parameters; asset-filtered news is the asset_news tool (assetNewsQuery).
    feedQuery: schemaOf(routes, 'listArticles', 'query').omit({ asset: true }),
    articleInput: articleParams.extend(yapsQuery.shape),
    searchQuery: schemaOf(routes, 'provenanceSearch', 'query'),
    checkBody: schemaOf(routes, 'provenanceCheck', 'body'),
    trendingQuery: schemaOf(routes, 'getIntelTrending', 'query'),
    reportQuery: schemaOf(routes, 'getIntelReport', 'query'),
    submitBody: schemaOf(routes, 'submitArticle', 'body'),
    storiesQuery: schemaOf(routes, 'listStories', 'query'),
    storyParams: schemaOf(routes, 'getStory', 'params'),
    assetSearchQuery: schemaOf(routes, 'searchAssets', 'query'),
    assetParams: schemaOf(routes, 'getAsset', 'params'),
    assetNewsQuery: schemaOf(routes, 'listArticles', 'query').required({ asset: true }),
  };
}
export type ToolSchemas = ReturnType<typeof toolSchemas>;

/**
 * Parsed tool arguments as the query string of the REST request they stand for (arrays
 * comma-joined, instants as ISO 8601): what page links and the feed cache key are made of.
 */
export function queryStringOf(args: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null) continue;
    q.set(k, Array.isArray(v) ? v.join(',') : v instanceof Date ? v.toISOString() : String(v));
  }
  return q.toString();
}
