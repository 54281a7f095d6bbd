/**
 * The one event filter rule (src/platform/events/filter.ts matchesAttributes), used by filtered
 * streams (matchesEventFilter) and webhook endpoints (webhook-match.ts endpointMatches and its index).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStreamFilter } from '../../src/stream/rules/filter.js';
import { foldFilterValue, matchesAttributes, matchesEventFilter, normalizeAttrs, type AttributeFilter } from '../../src/platform/events/filter.js';
import { compileFilters, EndpointIndex, endpointMatches, type EndpointFilters } from '../../src/webhooks/rules/match.js';

const set = (...v: string[]) => new Set(v);
const none: AttributeFilter = { tags: null, token_addresses: null, token_symbols: null };

describe('matchesAttributes', () => {
  const article = normalizeAttrs({ tags: ['DeFi', 'l2'], token_addresses: ['0xABC'], token_symbols: ['eth'] });

  it('needs one listed value of each listed kind (AND across kinds, OR within one)', () => {
    expect(matchesAttributes({ ...none, tags: set('defi') }, article)).toBe(true);
    expect(matchesAttributes({ ...none, tags: set('nft', 'l2') }, article)).toBe(true);
    expect(matchesAttributes({ ...none, tags: set('nft') }, article)).toBe(false);
    expect(matchesAttributes({ ...none, tags: set('defi'), token_symbols: set('ETH') }, article)).toBe(true);
    expect(matchesAttributes({ ...none, tags: set('defi'), token_symbols: set('BTC') }, article)).toBe(false);
    expect(matchesAttributes({ ...none, token_addresses: set('0xabc') }, article)).toBe(true);
  });

  it('no kind listed matches everything, an event without attributes only that', () => {
    expect(matchesAttributes(none, article)).toBe(true);
    expect(matchesAttributes(none, null)).toBe(true);
    expect(matchesAttributes({ ...none, tags: set('defi') }, null)).toBe(false);
    // A kind listed with no value can never be satisfied (callers never build one: webhook lists
    // that are empty do not filter, stream parameters always carry a value).
    expect(matchesAttributes({ ...none, tags: set() }, article)).toBe(false);
  });

  it('folds values the same way on both sides: trimmed, symbols upper-case, tags and addresses lower-case', () => {
    expect(foldFilterValue('token_symbols', ' eth ')).toBe('ETH');
    expect(foldFilterValue('tags', 'DeFi')).toBe('defi');
    expect(foldFilterValue('token_addresses', '0xABC')).toBe('0xabc');
    expect(normalizeAttrs({ tags: [' DeFi'], token_symbols: ['eth', 7], token_addresses: 'not a list' })).toEqual({ tags: ['defi'], token_symbols: ['ETH'], token_addresses: [] });
    expect(normalizeAttrs(null)).toBeNull();
    expect(normalizeAttrs(['tags'])).toBeNull();
  });
});

describe('stream filters and webhook filters are one rule', () => {
  const pool = { tags: ['defi', 'nft', 'l2'], token_addresses: ['0x' + 'ab'.repeat(20), '0x' + 'cd'.repeat(20)], token_symbols: ['ETH', 'btc', 'Sol'] };
  // Any case the stream parser accepts (an address keeps its lower-case 0x).
  const upper = (v: string) => (v.startsWith('0x') ? '0x' + v.slice(2).toUpperCase() : v.toUpperCase());
  const anyCase = (vs: string[]) => fc.constantFrom(...vs, ...vs.map(upper), ...vs.map((v) => v.toLowerCase()));
  const list = (vs: string[]) => fc.option(fc.uniqueArray(anyCase(vs), { minLength: 1, maxLength: 3 }), { nil: null });
  const filtersArb = fc.record({ tags: list(pool.tags), token_addresses: list(pool.token_addresses), token_symbols: list(pool.token_symbols) });
  const attrsArb = fc.option(
    fc.record({
      tags: fc.array(anyCase(pool.tags), { maxLength: 3 }),
      token_addresses: fc.array(anyCase(pool.token_addresses), { maxLength: 3 }),
      token_symbols: fc.array(anyCase(pool.token_symbols), { maxLength: 3 }),
    }),
    { nil: null },
  );
  const types = ['news.approved', 'news.tsunami'] as const;

  it('a stream filter and a webhook endpoint with the same filters match the same events', () => {
    fc.assert(
      fc.property(filtersArb, fc.uniqueArray(fc.constantFrom(...types), { minLength: 1 }), attrsArb, fc.constantFrom(...types), (filters, eventTypes, attrs, type) => {
        const qs = new URLSearchParams();
        qs.set('types', eventTypes.join(','));
        if (filters.tags) qs.set('tag', filters.tags.join(','));
        if (filters.token_addresses) qs.set('token_address', filters.token_addresses.join(','));
        if (filters.token_symbols) qs.set('token_symbol', filters.token_symbols.join(','));
        const parsed = parseStreamFilter(qs);
        if (!parsed.ok || !parsed.filter) throw new Error('the filter did not parse');
        const endpoint = { id: 1, eventTypes, filters: filters as EndpointFilters };
        const stream = matchesEventFilter(parsed.filter, type, normalizeAttrs(attrs));
        // The rule as the issue writes it, for the record.
        const has = (kind: keyof typeof filters) => {
          const wanted = filters[kind];
          return wanted === null || (attrs !== null && attrs[kind].some((v) => wanted.some((w) => foldFilterValue(kind, w) === foldFilterValue(kind, v))));
        };
        const spec = (eventTypes as string[]).includes(type) && has('tags') && has('token_addresses') && has('token_symbols');
        expect(stream).toBe(spec);
        expect(endpointMatches(endpoint, type, attrs)).toBe(spec);
        expect(new EndpointIndex([endpoint]).match(type, attrs)).toEqual(spec ? [1] : []);
      }),
      { numRuns: 500 },
    );
  });

  it('webhook filters: an absent, null or empty list does not filter', () => {
    expect(compileFilters({})).toEqual(none);
    expect(compileFilters({ tags: [], token_symbols: null })).toEqual(none);
    expect(compileFilters({ tags: ['DeFi'], token_symbols: ['eth'] })).toEqual({ ...none, tags: set('defi'), token_symbols: set('ETH') });
    expect(endpointMatches({ id: 1, eventTypes: ['news.tsunami'], filters: { tags: [] } }, 'news.tsunami', null)).toBe(true);
  });
});
