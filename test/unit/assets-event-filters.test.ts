import { describe, expect, it } from 'vitest';
import { normalizeAttrs } from '../../src/platform/events/filter.js';
import { assetRejection, unknownAssetOf } from '../../src/stream/asset-check.js';
import { filterMatches, parseStreamFilter, type StreamFilter } from '../../src/stream/rules/filter.js';
import type { StreamItem } from '../../src/stream/rules/frames.js';
import { EndpointIndex } from '../../src/webhooks/rules/match.js';

const item = (attrs: unknown): StreamItem => ({ id: '1-0', type: 'news.approved', json: '{}', staffOnly: false, sponsored: false, eventId: 1, attrs: normalizeAttrs(attrs) });
const parsed = (q: string) => {
  const r = parseStreamFilter(new URLSearchParams(q));
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.filter as StreamFilter;
};

describe('asset stream filters', () => {
  it('asset= (repeatable, comma lists) matches events of articles tagged with any of them, AND with other kinds', () => {
    const f = parsed('asset=bitcoin,ethereum&asset=solana');
    expect([...f.assets!].sort()).toEqual(['bitcoin', 'ethereum', 'solana']);
    expect(filterMatches(f, item({ tags: [], token_addresses: [], token_symbols: [], assets: ['ethereum'] }))).toBe(true);
    expect(filterMatches(f, item({ tags: [], token_addresses: [], token_symbols: ['ETH'] }))).toBe(false);
    expect(filterMatches(f, item(null))).toBe(false);
    const both = parsed('asset=bitcoin&tag=markets');
    expect(filterMatches(both, item({ tags: ['markets'], assets: ['bitcoin'] }))).toBe(true);
    expect(filterMatches(both, item({ tags: ['other'], assets: ['bitcoin'] }))).toBe(false);
    expect(parsed('asset=bitcoin').key).not.toBe(parsed('tag=bitcoin').key);
  });

  it('refuses a malformed id and the plural name', () => {
    const bad = parseStreamFilter(new URLSearchParams('asset=Bitcoin!'));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues[0].path).toBe('query.asset');
    const plural = parseStreamFilter(new URLSearchParams('assets=bitcoin'));
    expect(!plural.ok && plural.issues[0]).toMatchObject({ code: 'unknown_parameter', suggestion: 'asset' });
  });

  it('the registry check names the first unknown id; a failed look-up is 503, no look-up accepts', async () => {
    const f = parsed('asset=zzz-coin,bitcoin,aaa-coin');
    const known = new Set(['bitcoin']);
    expect(await unknownAssetOf(f, async (ids) => ids.filter((i) => !known.has(i)))).toBe('aaa-coin');
    expect(await unknownAssetOf(parsed('asset=bitcoin'), async (ids) => ids.filter((i) => !known.has(i)))).toBeNull();
    expect(await unknownAssetOf(f, undefined)).toBeNull();
    const failed = await unknownAssetOf(f, () => Promise.reject(new Error('db down')));
    expect(failed).toBeUndefined();
    expect(assetRejection(undefined).status).toBe(503);
    expect(assetRejection('aaa-coin')).toEqual({ status: 400, code: 'unknown_asset', message: 'unknown asset: aaa-coin', details: { parameter: 'asset', value: 'aaa-coin' } });
  });
});

describe('asset webhook filters', () => {
  it('an endpoint filtering on assets gets the events of those assets only', () => {
    const index = new EndpointIndex([
      { id: 1, eventTypes: ['news.approved'], filters: { assets: ['bitcoin'] } },
      { id: 2, eventTypes: ['news.approved'], filters: { assets: ['solana'], tags: ['markets'] } },
      { id: 3, eventTypes: ['news.approved'], filters: {} },
    ]);
    expect(index.match('news.approved', { tags: ['markets'], assets: ['bitcoin', 'solana'] })).toEqual([1, 2, 3]);
    expect(index.match('news.approved', { tags: [], assets: ['solana'] })).toEqual([3]);
    expect(index.match('news.approved', { tags: ['markets'] })).toEqual([3]);
  });
});
