import { describe, expect, it } from 'vitest';
import { tokenFieldsFrom, type AssetRecord } from '../../src/assets/rules/registry.js';
import { tagTargets } from '../../src/assets/rules/triggers.js';

const edited = (payload: Record<string, unknown>) => ({ type: 'article.edited', article_id: 7, payload: JSON.stringify({ type: 'article.edited', article_id: 7, ...payload }) });

describe('tagTargets', () => {
  it('tags after a page title only when the page-title job did not tag it in its transaction', () => {
    expect(tagTargets([edited({ reason: 'page_title' })])).toEqual([{ kind: 'article', id: 7 }]);
    expect(tagTargets([edited({ reason: 'page_title', assets: ['bitcoin'] })])).toEqual([]);
    expect(tagTargets([edited({ reason: 'page_title', assets: [] })])).toEqual([]);
  });

  it('tags after an edit of the headline, never after the tagger’s own event', () => {
    expect(tagTargets([edited({ reason: 'edit', fields: ['headline'] })])).toEqual([{ kind: 'article', id: 7 }]);
    expect(tagTargets([edited({ reason: 'edit', fields: ['summary'] })])).toEqual([]);
    expect(tagTargets([edited({ reason: 'assets', assets: ['bitcoin'] })])).toEqual([]);
  });
});

describe('tokenFieldsFrom', () => {
  const asset = (id: string, symbol: string, deployments: string[]): AssetRecord => ({ id, symbol, name: id, aliases: [], ambiguous: false, deployments, source: 'curated' });
  const held = new Map([
    ['usd-coin', asset('usd-coin', 'usdc', ['eip155:1/erc20:0xa0b8', 'eip155:10/erc20:0x0b2c'])],
    ['bitcoin', asset('bitcoin', 'BTC', [])],
  ]);

  it('gives upper-case symbols and Ethereum mainnet addresses in the tags’ order', () => {
    expect(tokenFieldsFrom(held, ['bitcoin', 'usd-coin'])).toEqual({ symbols: ['BTC', 'USDC'], addresses: ['0xa0b8'] });
  });

  it('is undefined when the held registry lacks an id (the caller asks PostgreSQL)', () => {
    expect(tokenFieldsFrom(held, ['bitcoin', 'new-coin'])).toBeUndefined();
  });
});
