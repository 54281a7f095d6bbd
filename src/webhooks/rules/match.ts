/**
 * Which webhook endpoints an event goes to. Pure: the relay builds an EndpointIndex from the enabled
 * endpoints and asks it once per event.
 *
 * Rule: an endpoint matches an event when the event's type is one of its event_types and its
 * filters match the event's article by the rule of src/platform/events/filter.ts (`matchesAttributes`,
 * shared with the filtered streams): for each filter kind it lists (tags, token_addresses,
 * token_symbols, assets), the article has at least one of the listed values. No filters = every event of its
 * types. An event without article attributes (news.tsunami is about a wire item) matches only
 * endpoints without filters. What is particular to endpoints is only how their stored filters are
 * read (`compileFilters`: an absent, null or empty list does not filter; values are folded to the
 * rule's case without validation, which the API did when the endpoint was saved).
 */
import {
  attributeKinds,
  foldFilterValue,
  matchesAttributes,
  normalizeAttrs,
  type AttributeFilter,
  type AttributeKind,
  type EventAttrs as NormalizedAttrs,
} from '../../platform/events/filter.js';

type FilterKind = AttributeKind;

/** An endpoint's filters: a kind that is absent (or null) does not filter. Lists are never empty. */
export type EndpointFilters = Partial<Record<FilterKind, string[] | null>>;

/** What the event log records beside each article event (event_log.attrs). */
export interface EventAttrs {
  tags?: string[] | null;
  token_addresses?: string[] | null;
  token_symbols?: string[] | null;
  assets?: string[] | null;
}

export interface MatchableEndpoint {
  id: number;
  eventTypes: readonly string[];
  filters: EndpointFilters;
}

/** An endpoint's stored filters as the shared rule takes them: the kinds with at least one value, folded. */
export function compileFilters(filters: EndpointFilters): AttributeFilter {
  const kind = (k: FilterKind) => {
    const list = filters[k];
    return list && list.length > 0 ? new Set(list.map((v) => foldFilterValue(k, v))) : null;
  };
  const assets = kind('assets');
  return { token_addresses: kind('token_addresses'), token_symbols: kind('token_symbols'), tags: kind('tags'), ...(assets ? { assets } : {}) };
}

/** The rule of the module comment, for one endpoint (the index applies the same test). */
export function endpointMatches(ep: MatchableEndpoint, type: string, attrs: EventAttrs | null): boolean {
  if (!ep.eventTypes.includes(type)) return false;
  return matchesAttributes(compileFilters(ep.filters), normalizeAttrs(attrs));
}

interface Compiled {
  id: number;
  filter: AttributeFilter;
}

/**
 * Endpoints indexed for matching many events quickly: per event type, the endpoints without filters,
 * and the filtered ones under each value of one of their filter kinds (any one works: an event must
 * have a value of every listed kind). An event's candidates are looked up by its own values, then
 * checked in full by the shared rule. Cost per event: its attribute values plus its candidates, not
 * the endpoint count.
 */
export class EndpointIndex {
  private readonly unfiltered = new Map<string, number[]>();
  private readonly byValue = new Map<string, Map<string, Compiled[]>>();
  readonly size: number;

  constructor(endpoints: readonly MatchableEndpoint[]) {
    this.size = endpoints.length;
    for (const ep of endpoints) {
      const filter = compileFilters(ep.filters);
      const sets = attributeKinds.flatMap((k) => (filter[k] ? [[k, filter[k]] as const] : []));
      const compiled: Compiled = { id: ep.id, filter };
      for (const type of new Set(ep.eventTypes)) {
        if (sets.length === 0) {
          const list = this.unfiltered.get(type) ?? [];
          list.push(ep.id);
          this.unfiltered.set(type, list);
          continue;
        }
        // Anchor on the kind with the fewest values: fewest index entries.
        const [anchorKind, anchorSet] = sets.reduce((a, b) => (b[1].size < a[1].size ? b : a));
        let byKey = this.byValue.get(type);
        if (!byKey) this.byValue.set(type, (byKey = new Map()));
        for (const v of anchorSet) {
          const key = `${anchorKind}:${v}`;
          const list = byKey.get(key) ?? [];
          list.push(compiled);
          byKey.set(key, list);
        }
      }
    }
  }

  /** Ids of the endpoints the event goes to (each once, ascending). */
  match(type: string, attrs: EventAttrs | null): number[] {
    const out = new Set<number>(this.unfiltered.get(type) ?? []);
    const byKey = this.byValue.get(type);
    const have: NormalizedAttrs | null = byKey ? normalizeAttrs(attrs) : null;
    if (byKey && have) {
      const seen = new Set<number>();
      for (const kind of attributeKinds) {
        for (const v of have[kind] ?? []) {
          for (const c of byKey.get(`${kind}:${v}`) ?? []) {
            if (seen.has(c.id)) continue;
            seen.add(c.id);
            if (matchesAttributes(c.filter, have)) out.add(c.id);
          }
        }
      }
    }
    return [...out].sort((a, b) => a - b);
  }
}
