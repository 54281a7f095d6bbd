import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { globalTrackingParams } from '../../src/platform/url/tracking-params.js';
import { MAX_NORMALIZED_URL_LENGTH, normalizeUrl } from '../../src/platform/url/normalize.js';

const n = normalizeUrl;

describe('normalizeUrl: cases', () => {
  it.each([
    ['HTTPS://WWW.CoinDesk.COM/markets/2026/01/05/btc-rallies/', 'https://www.coindesk.com/markets/2026/01/05/btc-rallies'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com//', 'https://example.com/'],
    ['  https://example.com/a  ', 'https://example.com/a'],
    ['https://user:pass@example.com/a', 'https://example.com/a'],
    ['https://example.com./a', 'https://example.com/a'],
    ['https://example.com/a/b/../c/./d', 'https://example.com/a/c/d'],
    ['https://example.com/%7euser/%2fx', 'https://example.com/~user/%2Fx'],
    ['https://example.com/a?b=2&a=1&c=3', 'https://example.com/a?a=1&b=2&c=3'],
    ['https://example.com/a?tag=2&tag=1', 'https://example.com/a?tag=2&tag=1'],
    ['https://example.com/a?&&b=1&&', 'https://example.com/a?b=1'],
    ['https://example.com/a?', 'https://example.com/a'],
    ['http://__proto__/', 'http://__proto__/'],
    ['http://constructor/?toString=1', 'http://constructor/?toString=1'],
  ])('%s -> %s', (raw, expected) => {
    expect(n(raw)).toBe(expected);
  });

  it('strips tracking parameters and keeps the meaningful ones', () => {
    expect(n('https://www.theblock.co/post/1234/eth-etf?utm_source=twitter&utm_medium=social&UTM_Campaign=x&fbclid=abc&gclid=1&id=7&page=2')).toBe(
      'https://www.theblock.co/post/1234/eth-etf?id=7&page=2',
    );
    const all = globalTrackingParams
      .filter((p) => p !== 'ref')
      .map((p, i) => `${p}=${i}`)
      .join('&');
    expect(n(`https://decrypt.co/123/story?${all}&keep=yes`)).toBe('https://decrypt.co/123/story?keep=yes');
    expect(n('https://decrypt.co/a?dclid=1&msclkid=2&twclid=3&mc_cid=4&mc_eid=5&igshid=6&_ga=7&_gl=8&yclid=9&srsltid=10&ref=hn&ref_src=twsrc')).toBe('https://decrypt.co/a');
  });

  it('keeps ref where it selects content (git hosts) and strips it elsewhere', () => {
    expect(n('https://github.com/org/repo/blob/x?ref=v1.2.0')).toBe('https://github.com/org/repo/blob/x?ref=v1.2.0');
    expect(n('https://blog.example.com/post?ref=producthunt')).toBe('https://blog.example.com/post');
  });

  it('applies provider rules only on their hosts', () => {
    expect(n('https://www.youtube.com/watch?v=abc&si=XYZ&t=42')).toBe('https://www.youtube.com/watch?t=42&v=abc');
    expect(n('https://medium.com/@a/post-1?source=rss')).toBe('https://medium.com/@a/post-1');
    expect(n('https://example.com/post?source=rss&s=1&t=2')).toBe('https://example.com/post?s=1&source=rss&t=2');
  });

  it('maps twitter hosts to x.com and strips share parameters there', () => {
    for (const host of ['twitter.com', 'www.twitter.com', 'mobile.twitter.com', 'TWITTER.com', 'www.x.com', 'mobile.x.com']) {
      expect(n(`https://${host}/VitalikButerin/status/1790000000000000000?s=20&t=AbC&ref_src=twsrc%5Etfw`)).toBe('https://x.com/VitalikButerin/status/1790000000000000000');
    }
    expect(n('https://nottwitter.com/a')).toBe('https://nottwitter.com/a');
  });

  it('keeps scheme differences (http vs https are different URLs)', () => {
    expect(n('http://example.com/a')).not.toBe(n('https://example.com/a'));
  });

  it.each([
    '',
    '   ',
    'not a url',
    'example.com/a',
    '//example.com/a',
    'ftp://example.com/file',
    'javascript:alert(1)',
    'data:text/html,hi',
    'mailto:a@example.com',
    'http://',
    'https://./',
    'http://exa mple.com/',
  ])('returns null for %j', (raw) => {
    expect(n(raw)).toBeNull();
  });

  it('returns null for over-long input and output', () => {
    expect(n(`https://example.com/${'a'.repeat(MAX_NORMALIZED_URL_LENGTH)}`)).toBeNull();
    expect(n(`https://example.com/${'a'.repeat(100_000)}`)).toBeNull();
    expect(n(`https://example.com/${'a'.repeat(1000)}`)).toMatch(/^https:\/\/example\.com\/a{1000}$/);
  });

  it('handles IDN and IPv6 hosts', () => {
    expect(n('https://BÜCHER.example/a')).toBe('https://xn--bcher-kva.example/a');
    expect(n('http://[::1]:80/a')).toBe('http://[::1]/a');
  });
});

const urlArb = fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ['http', 'https'] });
const trackingArb = fc.constantFrom('utm_source', 'utm_campaign', 'fbclid', 'gclid', 'dclid', 'msclkid', 'twclid', 'mc_cid', 'igshid', '_ga', '_gl', 'yclid', 'srsltid');

describe('normalizeUrl: properties', () => {
  it('never throws on any string, and returns null or an http(s) URL', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          urlArb,
          fc.string().map((s) => `http://${s}`),
          fc.string().map((s) => `https://a.com/${s}`),
        ),
        (s) => {
          const out = n(s);
          expect(out === null || /^https?:\/\/[^/?#]+\//.test(out)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          urlArb,
          fc.string({ unit: 'binary', maxLength: 200 }).map((s) => `https://example.com/${s}`),
          fc.string({ maxLength: 60 }).map((s) => `http://${s}`),
        ),
        (s) => {
          const once = n(s);
          if (once !== null) expect(n(once)).toBe(once);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('never keeps a fragment, and adding tracking parameters or a fragment changes nothing', () => {
    fc.assert(
      fc.property(urlArb, fc.array(fc.tuple(trackingArb, fc.stringMatching(/^[a-zA-Z0-9]{0,8}$/)), { maxLength: 4 }), (url, extra) => {
        const base = n(url);
        fc.pre(base !== null);
        expect(base!.includes('#')).toBe(false);
        const [noHash, hash] = url.split(/#(.*)/s);
        const extraQuery = extra.map(([k, v]) => `${k}=${v}`).join('&');
        const withTracking = extraQuery ? `${noHash}${noHash.includes('?') ? '&' : '?'}${extraQuery}` : noHash;
        expect(n(`${withTracking}#${hash ?? 'frag'}`)).toBe(base);
      }),
      { numRuns: 1000 },
    );
  });

  it('does not depend on the order of distinct query parameters', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), { minLength: 1, maxLength: 6 }), fc.infiniteStream(fc.nat()), (keys, rnd) => {
        const shuffled = [...keys].sort(() => (rnd.next().value % 3) - 1);
        const q = (ks: string[]) => ks.map((k) => `${k}=v${k}`).join('&');
        expect(n(`https://example.com/p?${q(shuffled)}`)).toBe(n(`https://example.com/p?${q(keys)}`));
      }),
      { numRuns: 500 },
    );
  });
});
