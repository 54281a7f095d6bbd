import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseStory } from '../../src/stories/rules/assign.js';
import { evaluate } from '../../src/stories/rules/evaluation.js';
import { itemFeatures } from '../../src/stories/rules/features.js';
import { MemoryStoryState } from '../../src/stories/rules/memory-state.js';
import { parseReplayLines, replayStories } from '../../src/stories/rules/replay.js';
import { itemSimilarity } from '../../src/stories/rules/similarity.js';
import { porterStem } from '../../src/stories/rules/stem.js';
import { amounts, decodeEntities, headlineText, isEvergreen, sameAmount, wordTokens } from '../../src/stories/rules/text.js';

const T0 = Date.parse('2025-07-28T09:00:00Z');
const H = 3600_000;
const flat = (): number => 1;
const item = (title: string, url: string | null, source: string, at = T0) => itemFeatures({ title, url, source, at });

describe('stories text rules', () => {
  it('decodes entities and drops a trailing outlet name', () => {
    expect(decodeEntities('GENIUS&#039; ban &amp; more')).toBe("GENIUS' ban & more");
    expect(headlineText('Bitcoin drops 1.6% to below $20000 - Reuters')).toBe('Bitcoin drops 1.6% to below $20000');
    expect(headlineText('FTX.com Goes Bankrupt - Yahoo Canada Finance')).toBe('FTX.com Goes Bankrupt');
    expect(headlineText('Bitcoin extends gains to above $43K (Cryptocurrency:BTC-USD)')).toBe('Bitcoin extends gains to above $43K');
    // A long tail after a dash is part of the headline, not an outlet.
    expect(headlineText('Bakkt sells loyalty unit - and pivots to crypto treasury strategy')).toContain('pivots');
  });

  it('stems, maps tickers and keeps figures as tokens', () => {
    expect(wordTokens('Binance launches XRP contracts')).toEqual(wordTokens('Binance launched XRP contract'));
    expect(wordTokens('BTC tops')).toContain('bitcoin');
    expect(wordTokens('Metaplanet now holds 17,132 BTC')).toContain('#17132');
    expect(wordTokens('Best exchanges of December 2023')).not.toContain('#2023');
  });

  it("stems with Porter's rules, so that derivations meet", () => {
    const cases: [string, string][] = [
      ['caresses', 'caress'],
      ['ponies', 'poni'],
      ['agreed', 'agre'],
      ['hopping', 'hop'],
      ['filing', 'file'],
      ['relational', 'relat'],
      ['generalizations', 'gener'],
      ['adjustment', 'adjust'],
      ['controll', 'control'],
      ['sky', 'sky'],
    ];
    for (const [word, stem] of cases) expect(porterStem(word)).toBe(stem);
    expect(wordTokens('Crypto trading')).toEqual(wordTokens('crypto trade'));
    expect(wordTokens('DOJ investigating FTX')).toEqual(wordTokens('DOJ investigation of FTX'));
  });

  it('maps the words of one set to one word', () => {
    expect(wordTokens('Bitcoin soars')).toEqual(wordTokens('Bitcoin surged'));
    expect(wordTokens('XRP plunges to lowest')).toEqual(wordTokens('Ripple crashes to lows'));
    expect(wordTokens('Justice Department probe')).toEqual(wordTokens('DOJ scrutiny'));
    expect(wordTokens('Bitcoin hash rate hits all-time high')).toEqual(wordTokens('Bitcoin hashrate hits ATH'));
    expect(wordTokens('Bitcoin soars')).not.toEqual(wordTokens('Bitcoin sinks'));
  });

  it('makes one word of a number and its unit, whatever its writing', () => {
    expect(wordTokens('$25M in taxes')).toEqual(wordTokens('$25 million in taxes'));
    expect(wordTokens('above $43K')).toEqual(wordTokens('above $43,000'));
    expect(wordTokens('DOJ seizes $3.36B')).toContain('#3360000000');
    expect(wordTokens('lobbying of $18.96 million')).not.toContain('#18');
    expect(wordTokens('cut CO2 by 99%, 5 things, 1st year')).toEqual(['cut', 'co2', '#99', 'thing', '1st', 'year']);
  });

  it("tells buyer's guides, reviews and explainers, which name no event", () => {
    expect(isEvergreen('10 Best Crypto Exchanges and Apps of December 2023')).toBe(true);
    expect(isEvergreen('The Best Crypto Wallets of December 2023')).toBe(true);
    expect(isEvergreen('Bitcoin IRA review: Invest in gold and more than 60 cryptocurrencies')).toBe(true);
    expect(isEvergreen('What is market manipulation in cryptocurrency?')).toBe(true);
    expect(isEvergreen("Brazil's biggest bank Itau enters crypto trading")).toBe(false);
    expect(isEvergreen('Bitcoin posts best month since 2021')).toBe(false);
  });

  it('reads amounts with units and compares them with a tolerance', () => {
    expect(amounts('DOJ seizes $3.36B in bitcoin')).toEqual([3.36e9]);
    expect(amounts('more than $3bn')).toEqual([3e9]);
    expect(amounts('price is up 20.38%')).toEqual([-20.38]);
    expect(amounts('5 things to know in 2025')).toEqual([]);
    expect(sameAmount(3.3e9, 3.36e9)).toBe(true);
    // "more than $3bn" and "$3.36B": equal at the precision of the rounder figure.
    expect(sameAmount(3e9, 3.36e9)).toBe(true);
    expect(sameAmount(4e4, 4.6e4)).toBe(false);
    expect(sameAmount(1.9e9, 4.4e9)).toBe(false);
    expect(sameAmount(-20.38, -20.99)).toBe(false);
  });
});

describe('stories similarity', () => {
  it('treats the same URL, a syndicated slug and an identical headline from another outlet as copies', () => {
    const a = item('Metaplanet adds 780 Bitcoin', 'https://cointelegraph.com/news/metaplanet-expands-bitcoin-treasury-17132-btc?utm_source=rss', 'Cointelegraph');
    const b = item('Metaplanet adds 790 Bitcoin', 'https://cointelegraph.com/news/metaplanet-expands-bitcoin-treasury-17132-btc', 'Cointelegraph', T0 + H);
    expect(itemSimilarity(a, b, flat)).toEqual({ score: 1, copy: true });
    const c = item('Money Reimagined: a crypto awakening', 'https://www.coindesk.com/money-reimagined-crypto-awakening-developing-nations', 'CoinDesk');
    const d = item('Money Reimagined', 'https://finance.yahoo.com/news/money-reimagined-crypto-awakening-developing-nations', 'Yahoo', T0 + H);
    expect(itemSimilarity(c, d, flat).copy).toBe(true);
  });

  it('does not treat one URL used for two days as a copy, nor one outlet reusing a title', () => {
    const a = item("Here's what happened in crypto today", 'https://cointelegraph.com/news/what-happened-in-crypto-today', 'Cointelegraph');
    const b = item("Here's what happened in crypto today", 'https://cointelegraph.com/news/what-happened-in-crypto-today', 'Cointelegraph', T0 + 7 * 24 * H);
    expect(itemSimilarity(a, b, flat).score).toBe(0);
    const c = item('On the hour', 'https://seekingalpha.com/a/1', 'Seeking Alpha');
    const d = item('On the hour', 'https://seekingalpha.com/a/2', 'Seeking Alpha', T0 + H);
    expect(itemSimilarity(c, d, flat).score).toBe(0);
  });

  it('scores shared rare words high and lowers conflicting figures', () => {
    const a = item('Ray Dalio suggests putting 15% in Bitcoin, gold amid US debt doom loop', null, 'Cointelegraph');
    const b = item('Billionaire Ray Dalio Backs 15% Allocation to Bitcoin and Gold Amid U.S. Debt Spiral', null, 'CoinDesk', T0 + 2 * H);
    expect(itemSimilarity(a, b, flat).score).toBeGreaterThan(0.5);
    const c = item('Crypto funds post record $4.4B inflows as Ether ETPs break 2024 gains', null, 'Cointelegraph');
    const d = item('Crypto funds see $1.9B inflows as Ether leads weekly gains', null, 'CoinDesk', T0 + 48 * H);
    expect(itemSimilarity(c, d, flat).score).toBeLessThan(0.5);
  });

  it('matches an evergreen headline only as a copy, and compares members stored without the flag as before', () => {
    const a = item('10 Best Crypto Exchanges and Apps of December 2023', 'https://nerdwallet.com/a', 'NerdWallet');
    const b = item('Best Crypto Exchanges and Apps of December 2023', 'https://forbes.com/b', 'Forbes', T0 + H);
    expect(a.evergreen).toBe(true);
    expect(itemSimilarity(a, b, flat).score).toBe(0);
    expect(itemSimilarity(a, item('10 Best Crypto Exchanges and Apps of December 2023', 'https://nerdwallet.com/a', 'NerdWallet', T0 + H), flat).copy).toBe(true);
    const fresh = item('Binance Futures launches XRP perpetual contract', null, 'CoinGape');
    const stored = JSON.parse(JSON.stringify(item('Binance Futures launches XRP perpetual contract with 75x leverage', null, 'TheBlock'))) as typeof fresh;
    delete stored.evergreen;
    expect('evergreen' in fresh).toBe(false);
    expect(itemSimilarity(fresh, stored, flat).score).toBeGreaterThan(0.5);
  });

  it('never matches on words across more than 72 hours', () => {
    const a = item('Binance Futures launches XRP perpetual contract', null, 'TheBlock');
    const b = item('Binance Futures launches XRP perpetual contract', null, 'CoinGape', T0 + 73 * H);
    expect(itemSimilarity(a, b, flat).score).toBe(0);
  });
});

describe('stories assignment', () => {
  it('joins the best story at or above the threshold and breaks ties by recency, then id', () => {
    const x = item('Binance Futures launches XRP perpetual contract', null, 'CoinGape');
    const same = item('Binance Futures launches XRP perpetual contract with 75x leverage', null, 'TheBlock');
    const other = item('Coinbase reports third-quarter loss', null, 'Reuters');
    expect(chooseStory(x, [{ id: 2, lastSeenAt: T0, members: [other] }], flat).storyId).toBeNull();
    const pick = chooseStory(
      x,
      [
        { id: 3, lastSeenAt: T0 - H, members: [same] },
        { id: 4, lastSeenAt: T0, members: [same] },
      ],
      flat,
    );
    expect(pick.storyId).toBe(4);
    expect(
      chooseStory(
        x,
        [
          { id: 5, lastSeenAt: T0, members: [same] },
          { id: 4, lastSeenAt: T0, members: [same] },
        ],
        flat,
      ).storyId,
    ).toBe(4);
  });

  it('the in-memory state groups copies and keeps unrelated items apart, deterministically', () => {
    const inputs = [
      { title: 'FTX files for Chapter 11 bankruptcy as CEO Sam Bankman-Fried resigns', url: 'https://theverge.com/a', source: 'The Verge', at: T0 },
      { title: 'FTX Files for Bankruptcy in Wake of Binance Halting Acquisition, CEO Resigns - CNET', url: 'https://cnet.com/b', source: 'CNET', at: T0 + H },
      { title: 'Coinbase reports third-quarter loss as volumes drop', url: 'https://reuters.com/c', source: 'Reuters', at: T0 + 2 * H },
    ];
    const run = (): number[] => {
      const s = new MemoryStoryState();
      return inputs.map((i) => s.assign(i).storyId);
    };
    const ids = run();
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(run()).toEqual(ids);
  });
});

describe('stories replay input and evaluation', () => {
  it('reports bad lines with their numbers and skips blank lines', () => {
    const text = [
      '{"id":1,"title":"A b c","published_at":"2025-07-28T09:00:00Z"}',
      '',
      'not json',
      '{"id":2,"published_at":"2025-07-28T09:00:00Z"}',
      '{"id":3,"title":"x","published_at":"soon"}',
    ].join('\n');
    const { items, errors } = parseReplayLines(text);
    expect(items).toHaveLength(1);
    expect(errors.map((e) => e.line)).toEqual([3, 4, 5]);
    expect(errors[1]!.message).toMatch(/title/);
  });

  it('replays in publication order and answers in input order', () => {
    const { items } = parseReplayLines(
      [
        '{"id":"late","title":"Binance Futures launches XRP/USDT perpetual contracts","published_at":"2020-01-06T13:18:00Z","source":"AMB"}',
        '{"id":"early","title":"Binance Futures launches XRP perpetual contract, with up to 75x leverage","published_at":"2020-01-06T12:07:00Z","source":"TheBlock"}',
      ].join('\n'),
    );
    const ids = replayStories(items);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[1]).toBe(1);
  });

  it('computes pairwise and B-cubed scores', () => {
    const e = evaluate(['a', 'a', 'b', 'c'], ['1', '1', '1', '2']);
    expect(e.pairwise.precision).toBeCloseTo(1 / 3);
    expect(e.pairwise.recall).toBe(1);
    // Items of the multi-item true story "a": precision 2/3 each, recall 1 each.
    expect(e.bcubedMulti.precision).toBeCloseTo(2 / 3);
    expect(e.bcubedMulti.recall).toBe(1);
    expect(e.bcubedAll.precision).toBeCloseTo((2 / 3 + 2 / 3 + 1 / 3 + 1) / 4);
  });

  it('keeps the measured quality on the labelled real headlines (headlines only)', () => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../data/stories/headlines.jsonl'), 'utf8');
    const truth = text
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { story: string }).story);
    const { items, errors } = parseReplayLines(text);
    expect(errors).toEqual([]);
    const e = evaluate(truth, replayStories(items.map((i) => ({ ...i, input: { ...i.input, text: null } }))).map(String));
    expect(e.items).toBeGreaterThanOrEqual(300);
    expect(e.bcubedMulti.precision).toBeGreaterThanOrEqual(0.95);
    expect(e.bcubedMulti.recall).toBeGreaterThanOrEqual(0.75);
    expect(e.bcubedAll.f1).toBeGreaterThanOrEqual(0.95);
  });
});
