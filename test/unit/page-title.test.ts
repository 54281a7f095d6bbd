import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { cleanHeadline, extractPage, MAX_DESCRIPTION_LENGTH, MAX_HEADLINE_LENGTH, provisionalHeadline } from '../../src/articles/rules/page-title.js';

/** The page title alone, or null when the page has none. */
const extractPageTitle = (html: string): string | null => extractPage(html)?.title ?? null;

describe('extractPage', () => {
  const page = (head: string) => `<!doctype html><html><head><title>T</title>${head}</head><body></body></html>`;

  it('reads the description: og:description, then twitter:description, then the description meta', () => {
    const all = '<meta name="description" content="D"><meta name="twitter:description" content="TW"><meta property="og:description" content="OG &amp;amp; more">';
    expect(extractPage(page(all))).toEqual({ title: 'T', description: 'OG & more', publishedAt: null });
    expect(extractPage(page('<meta name="description" content="  plain\n text ">'))?.description).toBe('plain text');
    expect(extractPage(page('<meta property="og:description" content=" "><meta name="description" content="D">'))?.description).toBe('D');
    expect(extractPage(page(`<meta name="description" content="${'word '.repeat(400)}">`))?.description?.length).toBeLessThanOrEqual(MAX_DESCRIPTION_LENGTH);
  });

  it('reads the claimed publication time from the article meta, itemprop or JSON-LD; unparsable times are skipped', () => {
    const at = (head: string) => extractPage(page(head))?.publishedAt?.toISOString() ?? null;
    expect(at('<meta property="article:published_time" content="2024-03-05T10:20:00+01:00">')).toBe('2024-03-05T09:20:00.000Z');
    expect(at('<meta property="article:published_time" content="yesterday"><meta itemprop="datePublished" content="2024-03-05">')).toBe('2024-03-05T00:00:00.000Z');
    const ld = { '@context': 'https://schema.org', '@graph': [{ '@type': 'WebPage' }, { '@type': 'NewsArticle', datePublished: '2025-07-29T03:42:12Z' }] };
    expect(at(`<script type="application/ld+json">${JSON.stringify(ld)}</script>`)).toBe('2025-07-29T03:42:12.000Z');
    expect(at('<script type="application/ld+json">{not json</script><time itemprop="datePublished" datetime="2023-12-04T20:25:01Z">Dec 4</time>')).toBe('2023-12-04T20:25:01.000Z');
    expect(at('')).toBeNull();
  });

  it('is null without a title, whatever else the page has', () => {
    expect(extractPage('<meta name="description" content="D">')).toBeNull();
  });
});

describe('extractPage: the title', () => {
  it('prefers og:title, then twitter:title, then <title>', () => {
    const page = (head: string) => `<!doctype html><html><head>${head}</head><body></body></html>`;
    expect(extractPageTitle(page('<title>T</title><meta name="twitter:title" content="TW"><meta property="og:title" content="OG">'))).toBe('OG');
    expect(extractPageTitle(page('<title>T</title><meta name="twitter:title" content="TW">'))).toBe('TW');
    expect(extractPageTitle(page('<title>T</title><meta property="twitter:title" content="TW2">'))).toBe('TW2');
    expect(extractPageTitle(page('<title>T</title>'))).toBe('T');
  });

  it('skips empty candidates', () => {
    expect(extractPageTitle('<head><meta property="og:title" content="   "><meta name="twitter:title" content=""><title>Real</title></head>')).toBe('Real');
  });

  it('decodes entities (also double-escaped ones) and folds whitespace', () => {
    expect(extractPageTitle('<title>\n  Tom &amp; Jerry&#8217;s   &quot;news&quot;\t</title>')).toBe('Tom & Jerry’s "news"');
    expect(extractPageTitle('<meta property="og:title" content="AT&amp;amp;T &amp;#8211; deal">')).toBe('AT&T – deal');
    expect(extractPageTitle('<title>a &lt;b&gt; c</title>')).toBe('a <b> c');
  });

  it('prefers the head <title> over an inline SVG title, but uses one when nothing else exists', () => {
    expect(extractPageTitle('<html><head><title>Page</title></head><body><svg><title>icon</title></svg></body></html>')).toBe('Page');
    expect(extractPageTitle('<body><svg><title>icon</title></svg></body>')).toBe('icon');
  });

  it('matches attribute names case-insensitively and tolerates broken HTML', () => {
    expect(extractPageTitle('<META PROPERTY="OG:TITLE" CONTENT="Loud">')).toBe('Loud');
    expect(extractPageTitle('<title>Unclosed')).toBe('Unclosed');
  });

  it('returns null when there is no title at all', () => {
    expect(extractPageTitle('<p>hello</p>')).toBeNull();
    expect(extractPageTitle('')).toBeNull();
  });

  it('cuts long titles at a word boundary', () => {
    const long = `${'word '.repeat(100)}end`;
    const t = extractPageTitle(`<title>${long}</title>`)!;
    expect(t.length).toBeLessThanOrEqual(MAX_HEADLINE_LENGTH);
    expect(t.endsWith('word…')).toBe(true);
  });

  it('never throws and never returns more than the maximum, for any input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (s) => {
        const t = extractPageTitle(`<title>${s}</title>`);
        expect(t === null || (t.length > 0 && t.length <= MAX_HEADLINE_LENGTH && t === t.trim() && !/\s\s/.test(t))).toBe(true);
      }),
    );
  });
});

describe('cleanHeadline / provisionalHeadline', () => {
  it('drops control characters and zero-width spaces', () => {
    expect(cleanHeadline('a\u0000b\u200bc\u0007 d')).toBe('abc d');
  });

  it('provisional headline is host without www. plus the decoded path', () => {
    expect(provisionalHeadline('https://www.example.com/news/some%20story/?utm_source=x#frag')).toBe('example.com/news/some story');
    expect(provisionalHeadline('http://example.com')).toBe('example.com');
    expect(provisionalHeadline('http://127.0.0.1:8080/a')).toBe('127.0.0.1/a');
  });
});
