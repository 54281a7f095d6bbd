/**
 * Stream filters from the query string of /ws/news/ and /sse/news/: `types` (a comma
 * list, given once), `token_address`, `token_symbol`, `tag`, `asset` (each repeatable, and each value may
 * itself be a comma list). Matching is the rule of src/platform/events/filter.ts. Without any of them
 * a connection is unfiltered and takes the broadcast path (one frame for its whole class).
 *
 * Staff-only types named by a connection that is not staff are accepted and never delivered (as
 * `types` on GET /api/v1/events/). Other query parameters are ignored (as before filters existed),
 * except the plural names of the webhook filter object (`tags`, `token_addresses`,
 * `token_symbols`, `assets`) and `type`, which are refused so that a typo does not silently mean "everything".
 */
import { eventFilterKey, filterValueRules, isEmptyFilter, matchesEventFilter, normalizeFilterValue, type AttributeKind, type EventFilter } from '../../platform/events/filter.js';
import { eventTypes, isEventType, type EventType } from '../../platform/events/events.js';
import { didYouMean } from '../../platform/http/did-you-mean.js';
import type { StreamItem } from './frames.js';

/** Values one kind may list. */
export const MAX_FILTER_VALUES = 50;

export interface StreamFilter extends EventFilter<EventType> {
  /** Canonical text: connections with equal keys share their frames. */
  key: string;
}

/** One bad parameter, in the shape of the API's validation_failed details. */
interface FilterIssue {
  path: string;
  code: string;
  message: string;
  suggestion?: string;
}

type FilterParse = { ok: true; filter: StreamFilter | null } | { ok: false; issues: FilterIssue[] };

const params: Record<string, AttributeKind> = { token_address: 'token_addresses', token_symbol: 'token_symbols', tag: 'tags', asset: 'assets' };
/** Names refused (rather than ignored) because they are near a filter's name; the suggestion is didYouMean's, as on REST. */
const misnamed = ['tags', 'token_addresses', 'token_symbols', 'type', 'assets'];
const known = ['types', ...Object.keys(params)];

/** The filter a query string asks for: null when it asks for none, issues when any value is bad. */
export function parseStreamFilter(query: URLSearchParams): FilterParse {
  const issues: FilterIssue[] = [];
  const issue = (name: string, code: string, message: string) => issues.push({ path: `query.${name}`, code, message });

  for (const name of misnamed) {
    const instead = didYouMean(name, known);
    if (query.has(name))
      issues.push({ path: `query.${name}`, code: 'unknown_parameter', message: `unknown parameter "${name}"; did you mean "${instead}"?`, suggestion: instead! });
  }

  let types: Set<EventType> | null = null;
  const typeValues = query.getAll('types');
  if (typeValues.length > 1) issue('types', 'repeated', 'give types once, as a comma-separated list');
  else if (typeValues.length === 1) {
    const list = typeValues[0].split(',').map((t) => t.trim());
    const unknown = list.filter((t) => !isEventType(t));
    if (unknown.length > 0) issue('types', 'invalid_value', `unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; known: ${eventTypes.join(', ')}`);
    else types = new Set(list as EventType[]);
  }

  const kinds: Partial<Record<AttributeKind, Set<string>>> = {};
  for (const [name, kind] of Object.entries(params)) {
    const raw = query.getAll(name).flatMap((v) => v.split(','));
    if (raw.length === 0) continue;
    const bad = raw.filter((v) => normalizeFilterValue(kind, v) === null);
    if (bad.length > 0) {
      issue(
        name,
        'invalid_value',
        `${bad
          .slice(0, 3)
          .map((v) => JSON.stringify(v.slice(0, 64)))
          .join(', ')} ${bad.length === 1 ? 'is' : 'are'} not ${filterValueRules[kind]}`,
      );
      continue;
    }
    const values = new Set(raw.map((v) => normalizeFilterValue(kind, v)!));
    if (values.size > MAX_FILTER_VALUES) {
      issue(name, 'too_many', `at most ${MAX_FILTER_VALUES} values`);
      continue;
    }
    kinds[kind] = values;
  }

  if (issues.length > 0) return { ok: false, issues };
  const f: EventFilter<EventType> = {
    types,
    token_addresses: kinds.token_addresses ?? null,
    token_symbols: kinds.token_symbols ?? null,
    tags: kinds.tags ?? null,
    assets: kinds.assets ?? null,
  };
  if (isEmptyFilter(f)) return { ok: true, filter: null };
  return { ok: true, filter: { ...f, key: eventFilterKey(f) } };
}

/** Whether a filtered connection wants the item (visibility is checked separately). */
export function filterMatches(f: StreamFilter, item: StreamItem): boolean {
  return matchesEventFilter(f, item.type, item.attrs);
}

/** The 400 answer to a bad filter, in the API's validation_failed shape (details.fields names each parameter). */
export function filterRejection(issues: readonly FilterIssue[]): { code: 'validation_failed'; message: string; details: { fields: FilterIssue[] } } {
  const names = [...new Set(issues.map((i) => i.path))].join(', ');
  return { code: 'validation_failed', message: `invalid stream filter: ${names}`, details: { fields: [...issues] } };
}
