import { describe, expect, it } from 'vitest';
import { copyFlags } from '../../src/stories/rules/copies.js';
import { itemFeatures } from '../../src/stories/rules/features.js';

const T = Date.parse('2020-01-06T12:00:00Z');
const item = (title: string, url: string, source: string, minutes: number) => itemFeatures({ title, url, source, at: T + minutes * 60_000 });

// Real items of the labelled set (test/data/stories/headlines.jsonl).
const coindesk = item('Bitcoin Mining Power Hits Fresh All-Time High', 'https://www.coindesk.com/bitcoin-mining-power-hits-fresh-all-time-high', 'CoinDesk', 15);
const coingape = item(
  'Bitcoin Hash Rate Soar to New Highs as BTC Bulls Step Up, $8,000 Incoming?',
  'https://coingape.com/bitcoin-hash-rate-soar-to-new-highs-as-btc-bulls-step-up-8000-incoming/',
  'CoinGape',
  0,
);
const sameUrl = item('Bitcoin mining power record', 'https://www.coindesk.com/bitcoin-mining-power-hits-fresh-all-time-high?utm_source=feed', 'CoinDesk', 20);
const syndicated = item('Bitcoin Mining Power Hits Fresh All-Time High', 'https://mirror.example/news/bitcoin-mining-power-hits-fresh-all-time-high', 'Mirror', 40);

describe('copyFlags', () => {
  it('marks a member that repeats an earlier member (same URL, slug or headline from another source)', () => {
    expect(copyFlags([coingape, coindesk, sameUrl, syndicated])).toEqual([false, false, true, true]);
  });

  it('frees a copy whose original left the story (a split)', () => {
    expect(copyFlags([coingape, syndicated])).toEqual([false, false]);
  });

  it('different stories of different sources are not copies', () => {
    expect(copyFlags([coingape, coindesk])).toEqual([false, false]);
    expect(copyFlags([])).toEqual([]);
  });
});
