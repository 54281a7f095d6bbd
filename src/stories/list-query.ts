/**
 * GET /stories/'s parsed query as the service's filter, with the rule a single parameter's schema
 * cannot state (until after since). The REST route and the MCP `stories` tool share it.
 */
import { DomainError } from '../platform/errors/index.js';
import type { StoryListFilter } from './queries.js';

export interface StoryListQuery {
  page: number;
  per_page: number;
  since?: Date;
  until?: Date;
  tag?: string[];
  token_symbol?: string[];
  min_sources?: number;
}

export function storyListFilter(query: StoryListQuery): StoryListFilter {
  if (query.since && query.until && query.until <= query.since) {
    throw new DomainError('validation_failed', 'invalid request: query.until', { fields: [{ path: 'query.until', code: 'conflict', message: 'must be later than since' }] });
  }
  return {
    since: query.since,
    until: query.until,
    tags: query.tag,
    tokenSymbols: query.token_symbol,
    minSources: query.min_sources,
    page: query.page,
    perPage: query.per_page,
  };
}
