import { describe, expect, it } from 'vitest';
import { compileTagger } from '../../src/assets/rules/compile.js';
import { buildSeedRegistry, slugify, type AssetRecord } from '../../src/assets/rules/registry.js';
import { tagText } from '../../src/assets/rules/tagger.js';
import { decodeEntities, tokenize } from '../../src/assets/rules/tokenize.js';
import { DEFAULT_AMBIGUOUS_WORDS } from '../../src/assets/rules/word-lists.js';
import { loadSeedRegistry } from '../../src/assets/seed-registry.js';

const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
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

const small: AssetRecord[] = [
  asset('bitcoin', 'BTC', 'Bitcoin'),
  asset('ethereum', 'ETH', 'Ethereum', { aliases: ['Ether'] }),
  asset('tether', 'USDT', 'Tether USDt', { deployments: [`eip155:1/erc20:${USDT.toLowerCase()}`] }),
  asset('xrp', 'XRP', 'XRP', { aliases: ['XRP Ledger'] }),
  asset('bitcoin-gold', 'BTG', 'Bitcoin Gold', { source: 'cryptocurrency-icons' }),
  asset('near', 'NEAR', 'NEAR Protocol', { ambiguous: true }),
  asset('chainlink', 'LINK', 'Chainlink', { ambiguous: true }),
  asset('harmony', 'ONE', 'Harmony', { source: 'cryptocurrency-icons' }),
  asset('gas', 'GAS', 'Gas', { source: 'cryptocurrency-icons' }),
  asset('solana', 'SOL', 'Solana', { deployments: ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:So11111111111111111111111111111111111111112'] }),
  asset('sky', 'SKY', 'Sky'),
  asset('dai', 'DAI', 'Dai'),
  asset('fake-dai-a', 'FAKE', 'Fake A', { source: 'metamask' }),
  asset('fake-dai-b', 'FAKE', 'Fake B', { source: 'metamask' }),
  asset('million', 'MM', 'Million', { source: 'metamask' }),
];
const tagger = compileTagger(small, DEFAULT_AMBIGUOUS_WORDS);
const ids = (title: string, body?: string) => tagText(tagger, { title, body }).map((t) => t.id);

describe('asset tagger: names, tickers, cashtags', () => {
  it('tags names, aliases and exact-case tickers', () => {
    expect(ids('Bitcoin tops $120K as ETH lags')).toEqual(['bitcoin', 'ethereum']);
    expect(ids('Ether preps record short squeeze')).toEqual(['ethereum']);
    expect(ids("Ripple's XRP Ledger launches a token standard")).toEqual(['xrp']);
  });

  it('never tags a ticker in the wrong case, nor a word that only contains it', () => {
    expect(ids('Eth is a nickname; Ethical investing; BTCS raises money')).toEqual([]);
  });

  it('tags cashtags, even of ambiguous tickers, and ignores dollar amounts', () => {
    expect(ids('$LINK and $near rally while $100 buys little')).toEqual(['chainlink', 'near']);
  });

  it('takes the longest phrase, and never joins words across punctuation', () => {
    expect(ids('Bitcoin Gold forks again')).toEqual(['bitcoin-gold']);
    expect(ids('Ray Dalio backs 15% in Bitcoin, Gold amid debt spiral')).toEqual(['bitcoin']);
  });

  it('decodes HTML entities left in feed titles', () => {
    expect(decodeEntities('Bitcoin &#039;bubble&#039; &amp; more')).toBe("Bitcoin 'bubble' & more");
    expect(ids('&#039;Altseason is here&#039; — 5 things to know in Bitcoin')).toEqual(['bitcoin']);
  });
});

describe('asset tagger: traps', () => {
  it('never tags companies: Coinbase, Strategy, MicroStrategy, BlackRock; but the asset they name', () => {
    expect(ids('Coinbase reportedly in talks to buy CoinDCX')).toEqual([]);
    expect(ids('Lawsuits piling up against Strategy could take years')).toEqual([]);
    expect(ids('MicroStrategy adds 525 Bitcoin')).toEqual(['bitcoin']);
    expect(ids("BlackRock's Bitcoin ETF sees first day without inflows")).toEqual(['bitcoin']);
  });

  it('tells Ripple the company from XRP, and Tether the company from USDT', () => {
    expect(ids('Ripple CEO reacts to SWIFT announcement')).toEqual([]);
    expect(ids('Tether CEO teases new wallet')).toEqual([]);
    expect(ids('Tether adds $1B in Bitcoin as USDT supply nears $175B').sort()).toEqual(['bitcoin', 'tether']);
    expect(ids('Will Intel give up on chip manufacturing? The ripple effects could be big')).toEqual([]);
  });

  it('never tags an asset hidden in a company name', () => {
    expect(ids('Mercado Bitcoin reinvents itself as a financial hub')).toEqual([]);
    expect(ids('Dynamix stock soars after unveiling Ether Machine deal')).toEqual([]);
    expect(ids('Tron Inc. seeks $1B')).toEqual([]);
  });

  it('never tags generic words', () => {
    expect(ids('Stablecoins, altcoins and crypto tokens: DeFi TVL hits a record')).toEqual([]);
  });

  it('tags English-word tickers (ONE, NEAR, GAS, LINK) only with context', () => {
    expect(ids('ATOM climbs near key support; one trader sees gas fees fall')).toEqual([]);
    expect(ids('Bitcoin Near $90K')).toEqual(['bitcoin']);
    expect(ids('ONE OF THE BIGGEST LINK UPS EVER')).toEqual([]);
    expect(ids('NEAR Slides 4% After Hitting Resistance')).toEqual(['near']);
    expect(ids('Chainlink (LINK) price jumps')).toEqual(['chainlink']);
    expect(ids('LINK token holders vote')).toEqual(['chainlink']);
    expect(ids('Sky-High Momentum Meets Fading Volume')).toEqual([]);
    expect(ids('Sky protocol rated B-')).toEqual(['sky']);
  });

  it('needs crypto context for tickers and one-word names that only package data knows', () => {
    expect(ids('Private placement of $75 Million closes')).toEqual([]);
    expect(ids('GAS and ONE')).toEqual([]);
    expect(ids('Bitcoin slips while ONE and GAS rally')).toEqual(['bitcoin']);
    expect(ids('Crypto traders pile into ONE token')).toEqual(['harmony']);
  });

  it('never tags a ticker several assets of the same standing share', () => {
    expect(ids('$FAKE and FAKE rally with crypto')).toEqual([]);
  });

  it('lets a list of tickers through but not a shouting headline', () => {
    expect(ids('Price predictions 7/28: BTC, ETH, XRP, SOL').sort()).toEqual(['bitcoin', 'ethereum', 'solana', 'xrp']);
    expect(ids('BREAKING: MARKETS SURGE AS ONE DEAL CLOSES')).toEqual([]);
  });
});

describe('asset tagger: addresses', () => {
  it('resolves a checksummed, lowercase or uppercase EVM address through the deployments', () => {
    expect(ids(`Whale moves ${USDT}`)).toEqual(['tether']);
    expect(ids(`Whale moves ${USDT.toLowerCase()}`)).toEqual(['tether']);
    expect(ids(`Whale moves 0x${USDT.slice(2).toUpperCase()}`)).toEqual(['tether']);
  });

  it('ignores a mixed-case address whose checksum is wrong, a malformed one and an unknown one', () => {
    const badChecksum = USDT.replace('dAC', 'Dac');
    expect(ids(`Whale moves ${badChecksum}`)).toEqual([]);
    expect(ids('Whale moves 0xdAC17F958D2ee523a2206206994597C13D831ec')).toEqual([]);
    expect(ids('Whale moves 0x0000000000000000000000000000000000000001')).toEqual([]);
  });

  it('resolves a base58 address the registry knows', () => {
    expect(ids('Wrapped SOL mint So11111111111111111111111111111111111111112 drained?')).toEqual(['solana']);
  });
});

describe('asset tagger: salience and primary', () => {
  it('marks one primary when one asset leads, none for a list', () => {
    const one = tagText(tagger, { title: 'Ethereum surges to a new all-time high' });
    expect(one).toEqual([{ id: 'ethereum', salience: expect.any(Number), primary: true }]);
    expect(one[0].salience).toBeGreaterThanOrEqual(0.8);
    const list = tagText(tagger, { title: 'Bitcoin, Ether, XRP lag stocks' });
    expect(list.filter((t) => t.primary)).toEqual([]);
  });

  it('weighs the body less than the title, and ranks by salience', () => {
    const tags = tagText(tagger, { title: 'Ethereum developers set the Fusaka date', body: 'Bitcoin traders shrugged.' });
    expect(tags.map((t) => t.id)).toEqual(['ethereum', 'bitcoin']);
    expect(tags[1].salience).toBeLessThan(0.5);
    expect(tags[0].primary).toBe(true);
    for (const t of tags) expect(t.salience).toBeGreaterThan(0);
  });
});

describe('registry merge', () => {
  it('gives curated assets their ticker over package data and attaches deployments to them', () => {
    const reg = buildSeedRegistry(
      [asset('tether', 'USDT', 'Tether USDt'), asset('bnb', 'BNB', 'BNB')],
      [
        { symbol: 'USDT', name: 'Tether' },
        { symbol: 'BNB', name: 'Binance Coin' },
        { symbol: 'USD', name: 'USD' },
        { symbol: 'ZEC', name: 'Zcash' },
      ],
      { [USDT]: { name: 'Tether USD', symbol: 'USDT', erc20: true }, '0x1111111111111111111111111111111111111111': { name: 'Zcash', symbol: 'ZEC', erc20: true } },
    );
    expect(reg.map((a) => a.id)).toEqual(['tether', 'bnb', 'zcash']);
    expect(reg[0].deployments).toEqual([`eip155:1/erc20:${USDT.toLowerCase()}`]);
    expect(reg[2].deployments).toEqual(['eip155:1/erc20:0x1111111111111111111111111111111111111111']);
    expect(slugify('USD Coin')).toBe('usd-coin');
  });

  it('the seed registry from the packages has the major assets, unique ids and CAIP-19 deployments', () => {
    const reg = loadSeedRegistry();
    expect(reg.length).toBeGreaterThan(1000);
    expect(new Set(reg.map((a) => a.id)).size).toBe(reg.length);
    for (const id of ['bitcoin', 'ethereum', 'tether', 'usd-coin', 'xrp', 'solana', 'chainlink']) expect(reg.find((a) => a.id === id)).toBeDefined();
    expect(reg.find((a) => a.id === 'usd-coin')?.deployments).toContain('eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    for (const a of reg) for (const d of a.deployments) expect(d).toMatch(/^eip155:1\/erc20:0x[0-9a-f]{40}$/);
  });
});

it('tokenize marks cashtags, parentheses and phrase joins', () => {
  const [a, b, c] = tokenize('$ETH (BTC), Gold');
  expect([a.cashtag, b.parenthesised, c.joined]).toEqual([true, true, false]);
});
