import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AssetRecord } from '../../src/assets/rules/registry.js';
import { diffTokenList, tokenListSchema } from '../../src/assets/rules/token-lists.js';

const sample = JSON.parse(readFileSync(new URL('../data/assets/token-list-sample.json', import.meta.url), 'utf8'));
const asset = (id: string, symbol: string, name: string, more: Partial<AssetRecord> = {}): AssetRecord => ({
  id,
  symbol,
  name,
  aliases: [],
  ambiguous: false,
  deployments: [],
  source: 'curated',
  ...more,
});
const registry: AssetRecord[] = [
  asset('tether', 'USDT', 'Tether USDt', { deployments: ['eip155:1/erc20:0xdac17f958d2ee523a2206206994597c13d831ec7'] }),
  asset('usd-coin', 'USDC', 'USD Coin', { deployments: ['eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'] }),
  asset('chainlink', 'LINK', 'Chainlink'),
  asset('ethena', 'ENA', 'Ethena'),
  asset('pendle', 'PNDL', 'Some other Pendle', { source: 'staff' }),
];

describe('token list schema', () => {
  it('accepts the sample list and keeps only the fields the registry reads', () => {
    const list = tokenListSchema.parse(sample);
    expect(list.tokens).toHaveLength(8);
    expect(list.tokens[3]).toEqual({ chainId: 42161, address: '0xf97f4df75117a78c1A5a0DBb814Af92458539FB4', name: 'ChainLink Token', symbol: 'LINK', decimals: 18 });
  });

  it.each([
    ['a token without an address', (l: any) => delete l.tokens[0].address, 'tokens.0.address'],
    ['a malformed address', (l: any) => (l.tokens[1].address = '0x1234'), 'tokens.1.address'],
    ['a chain id of 0', (l: any) => (l.tokens[2].chainId = 0), 'tokens.2.chainId'],
    ['decimals above 255', (l: any) => (l.tokens[2].decimals = 256), 'tokens.2.decimals'],
    ['no version', (l: any) => delete l.version, 'version'],
    ['no tokens', (l: any) => (l.tokens = []), 'tokens'],
  ])('rejects %s', (_what, spoil, path) => {
    const list = structuredClone(sample);
    spoil(list);
    const r = tokenListSchema.safeParse(list);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path.join('.')).toBe(path);
  });
});

describe('diffTokenList', () => {
  const diff = diffTokenList(registry, tokenListSchema.parse(sample).tokens);

  it('skips deployments the registry holds and adds deployments to assets matched by symbol and name', () => {
    expect(diff.newDeployments).toEqual([
      { asset_id: 'usd-coin', caip19: 'eip155:42161/erc20:0xaf88d065e77c8cc2239327c5edb3a432268e5831' },
      { asset_id: 'usd-coin', caip19: 'eip155:137/erc20:0x3c499c542cef5e3811e1192ce70d8cc03d5c3359' },
      { asset_id: 'chainlink', caip19: 'eip155:42161/erc20:0xf97f4df75117a78c1a5a0dbb814af92458539fb4' },
      { asset_id: 'ethena', caip19: 'eip155:1/erc20:0x57e114b691db790c35207b2e685d4a43181e6061' },
    ]);
  });

  it('creates one asset per symbol and name with every chain, under a free slug id', () => {
    expect(diff.newAssets).toEqual([
      {
        id: 'pendle-pendle',
        symbol: 'PENDLE',
        name: 'Pendle',
        deployments: ['eip155:1/erc20:0x808507121b80c02388fad14726482e061b8da827', 'eip155:42161/erc20:0x0c880f6761f1af8d9aa9c466984b80dab9a8c9e8'],
      },
      { id: 'eigen', symbol: 'EIGEN', name: 'Eigen', deployments: ['eip155:1/erc20:0xec53bf9167f50cdeb3ae105f56099aaab9061f83'] },
    ]);
  });

  it('is empty once the list is applied, and never matches a shared symbol with another name', () => {
    const applied = [
      ...registry.map((a) => ({ ...a, deployments: [...a.deployments, ...diff.newDeployments.filter((d) => d.asset_id === a.id).map((d) => d.caip19)] })),
      ...diff.newAssets.map((a) => asset(a.id, a.symbol, a.name, { deployments: a.deployments, source: 'token-list' })),
    ];
    expect(diffTokenList(applied, tokenListSchema.parse(sample).tokens)).toEqual({ newAssets: [], newDeployments: [] });
    const other = diffTokenList(registry, [{ chainId: 1, address: `0x${'1'.repeat(40)}`, name: 'Tether Gold', symbol: 'USDT', decimals: 6 }]);
    expect(other.newDeployments).toEqual([]);
    expect(other.newAssets.map((a) => a.id)).toEqual(['tether-gold']);
  });
});
