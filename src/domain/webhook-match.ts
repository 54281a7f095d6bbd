/**
 * Which webhook endpoints an event goes to. Pure: the relay builds an EndpointIndex from the enabled
 * endpoints and asks it once per event.
 *
 * Rule: an endpoint matches an event when the event's type is one of its event_types and, for each
 * filter kind it lists (tags, token_addresses, token_symbols), the event's article has at least one
 * of the listed values. No filters = every event of its types. An event without article attributes
 * (news.tsunami is about a wire item) matches only endpoints without filters.
 * Tags and addresses compare lower-case, symbols upper-case (the article side is normalised the same
 * way here, whatever case it was stored in).
 */

const filterKinds = ['tags', 'token_addresses', 'token_symbols'] as const;
export type FilterKind = (typeof filterKinds)[number];

/** An endpoint's filters: a kind that is absent (or null) does not filter. Lists are never empty. */
export type EndpointFilters = Partial<Record<FilterKind, string[] | null>>;

/** What the event log records beside each article event (event_log.attrs). */
export interface EventAttrs {
  tags?: string[] | null;
  token_addresses?: string[] | null;
  token_symbols?: string[] | null;
}

export interface MatchableEndpoint {
  id: number;
  eventTypes: readonly string[];
  filters: EndpointFilters;
}

export function normalizeFilterValue(kind: FilterKind, v: string): string {
  return kind === 'token_symbols' ? v.trim().toUpperCase() : v.trim().toLowerCase();
}

function valuesOf(attrs: EventAttrs | null, kind: FilterKind): Set<string> {
  const list = attrs?.[kind];
  return new Set(Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string').map((x) => normalizeFilterValue(kind, x)) : []);
}

function activeKinds(filters: EndpointFilters): FilterKind[] {
  return filterKinds.filter((k) => (filters[k]?.length ?? 0) > 0);
}

/** The rule of the module comment, for one endpoint (the index applies the same test). */
export function endpointMatches(ep: MatchableEndpoint, type: string, attrs: EventAttrs | null): boolean {
  if (!ep.eventTypes.includes(type)) return false;
  const kinds = activeKinds(ep.filters);
  if (kinds.length === 0) return true;
  return kinds.every((k) => {
    const have = valuesOf(attrs, k);
    return ep.filters[k]!.some((v) => have.has(normalizeFilterValue(k, v)));
  });
}

interface Compiled {
  id: number;
  /** Normalised filter values by kind; only the kinds the endpoint filters on. */
  sets: [FilterKind, Set<string>][];
}

/**
 * Endpoints indexed for matching many events quickly: per event type, the endpoints without filters,
 * and the filtered ones under each value of one of their filter kinds (any one works: an event must
 * have a value of every listed kind). An event's candidates are looked up by its own values, then
 * checked in full. Cost per event: its attribute values plus its candidates, not the endpoint count.
 */
export class EndpointIndex {
  private readonly unfiltered = new Map<string, number[]>();
  private readonly byValue = new Map<string, Map<string, Compiled[]>>();
  readonly size: number;

  constructor(endpoints: readonly MatchableEndpoint[]) {
    this.size = endpoints.length;
    for (const ep of endpoints) {
      const kinds = activeKinds(ep.filters);
      const compiled: Compiled = { id: ep.id, sets: kinds.map((k) => [k, new Set(ep.filters[k]!.map((v) => normalizeFilterValue(k, v)))]) };
      for (const type of new Set(ep.eventTypes)) {
        if (kinds.length === 0) {
          const list = this.unfiltered.get(type) ?? [];
          list.push(ep.id);
          this.unfiltered.set(type, list);
          continue;
        }
        // Anchor on the kind with the fewest values: fewest index entries.
        const [anchorKind, anchorSet] = compiled.sets.reduce((a, b) => (b[1].size < a[1].size ? b : a));
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
    if (byKey && attrs) {
      const have = new Map(filterKinds.map((k) => [k, [...valuesOf(attrs, k)]] as const));
      const seen = new Set<number>();
      for (const kind of filterKinds) {
        for (const v of have.get(kind)!) {
          for (const c of byKey.get(`${kind}:${v}`) ?? []) {
            if (seen.has(c.id)) continue;
            seen.add(c.id);
            if (c.sets.every(([k, wanted]) => have.get(k)!.some((x) => wanted.has(x)))) out.add(c.id);
          }
        }
      }
    }
    return [...out].sort((a, b) => a - b);
  }
}
