import { describe, expect, it } from 'vitest';
import { newestTime, renderRss, xmlEscape } from '../../src/feed/rules/syndication.js';
import { normalizeSource, parseIsoInstant } from '../../src/articles/schemas.js';

describe('xmlEscape', () => {
  it('escapes the five XML specials and drops characters XML 1.0 forbids, keeping emoji and other text', () => {
    expect(xmlEscape(`a & b < c > d "e" 'f'`)).toBe('a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;');
    expect(xmlEscape('bell\u0007 nul\u0000 tab\t nl\n \uFFFE lone\uD800 🦑 déjà')).toBe('bell nul tab\t nl\n  lone 🦑 déjà');
  });

  it('an empty feed is still a well-formed channel', () => {
    const xml = renderRss([], {
      title: 'T & T',
      description: 'd',
      homeUrl: 'https://x.example/',
      selfUrl: 'https://x.example/f?a=1&b=2',
      recordUrl: (id) => `https://x.example/${id}`,
      schemeBase: 'https://x.example/#',
    });
    expect(xml).toContain('<title>T &amp; T</title>');
    expect(xml).toContain('href="https://x.example/f?a=1&amp;b=2"');
    expect(newestTime([]).getTime()).toBe(0);
  });
});

describe('feed filter values', () => {
  it('parseIsoInstant: dates are UTC midnight, date-times need a zone, impossible dates are refused', () => {
    expect(parseIsoInstant('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseIsoInstant('2026-11-01T10:00:00+02:00')?.toISOString()).toBe('2026-11-01T08:00:00.000Z');
    expect(parseIsoInstant('2026-11-01T10:00+0230')?.toISOString()).toBe('2026-11-01T07:30:00.000Z');
    expect(parseIsoInstant('2024-02-29T00:00:00.123456789Z')?.toISOString()).toBe('2024-02-29T00:00:00.123Z');
    for (const bad of ['2026-02-29', '2026-04-31', '2026-13-01', '2026-11-01T10:00:00', '2026-11-01T24:00:00Z', '2026-11-01T10:60Z', '1 Nov 2026', '', '2026-11-01T10:00:00ZZ']) {
      expect(parseIsoInstant(bad), bad).toBeNull();
    }
  });

  it('normalizeSource reduces URLs and www. to the host, lower-cased', () => {
    expect(normalizeSource(' https://WWW.CoinDesk.com/markets/x?y=1 ')).toBe('coindesk.com');
    expect(normalizeSource('www.theblock.co')).toBe('theblock.co');
    expect(normalizeSource('The Block')).toBe('the block');
  });
});
