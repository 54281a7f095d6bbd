import { describe, expect, it } from 'vitest';
import { FeedParseError, parseFeed } from '../../src/wire/rules/feed-parse.js';

const base = 'https://news.example/feeds/main.xml';

describe('feed parsing', () => {
  it('RSS 2.0: title, link, guid, pubDate, description; relative links resolved; HTML and CDATA cleaned', () => {
    const f = parseFeed(
      `<?xml version="1.0" encoding="UTF-8"?>
      <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Main</title>
        <item><title>Bitcoin &amp; friends rally</title><link>https://news.example/a?utm_source=rss</link><guid isPermaLink="false">id-1</guid>
          <pubDate>Tue, 10 Jun 2025 04:00:00 GMT</pubDate><description><![CDATA[<p>Summary <b>one</b></p>]]></description></item>
        <item><title><![CDATA[<b>Solana</b> &amp; more]]></title><link>/relative/b</link><dc:date>2025-06-11T10:00:00Z</dc:date></item>
        <item><title>No link, guid is the link</title><guid>https://news.example/c</guid><pubDate>not a date</pubDate></item>
        <item><title>No link at all</title></item>
        <item><link>https://news.example/untitled</link></item>
      </channel></rss>`,
      { baseUrl: base },
    );
    expect(f.format).toBe('rss');
    expect(f.title).toBe('Main');
    expect(f.skipped).toBe(2);
    expect(f.items).toEqual([
      { url: 'https://news.example/a?utm_source=rss', title: 'Bitcoin & friends rally', summary: 'Summary one', guid: 'id-1', publishedAt: new Date('2025-06-10T04:00:00Z') },
      { url: 'https://news.example/relative/b', title: 'Solana & more', summary: null, guid: null, publishedAt: new Date('2025-06-11T10:00:00Z') },
      { url: 'https://news.example/c', title: 'No link, guid is the link', summary: null, guid: 'https://news.example/c', publishedAt: null },
    ]);
  });

  it('Atom: alternate link, id, published/updated, summary', () => {
    const f = parseFeed(
      `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom wire</title>
        <entry><title type="html">ETF &lt;em&gt;flows&lt;/em&gt;</title><link rel="self" href="https://news.example/self"/><link rel="alternate" type="text/html" href="https://news.example/etf"/>
          <id>urn:uuid:1</id><updated>2025-06-12T08:00:00Z</updated><summary>Flows</summary></entry>
        <entry><title>Second</title><link href="second"/><id>urn:uuid:2</id><published>2025-06-12T09:00:00+02:00</published></entry>
      </feed>`,
      { baseUrl: base },
    );
    expect(f.format).toBe('atom');
    expect(f.items.map((i) => [i.url, i.title, i.guid, i.publishedAt?.toISOString()])).toEqual([
      ['https://news.example/etf', 'ETF flows', 'urn:uuid:1', '2025-06-12T08:00:00.000Z'],
      ['https://news.example/feeds/second', 'Second', 'urn:uuid:2', '2025-06-12T07:00:00.000Z'],
    ]);
  });

  it('RSS 1.0 (RDF)', () => {
    const f = parseFeed(
      `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://news.example/"><title>RDF</title></channel>
        <item rdf:about="https://news.example/rdf-1"><title>RDF one</title><link>https://news.example/rdf-1</link><dc:date>2025-06-01T00:00:00Z</dc:date></item>
      </rdf:RDF>`,
      { baseUrl: base },
    );
    expect(f.format).toBe('rdf');
    expect(f.title).toBe('RDF');
    expect(f.items).toHaveLength(1);
    expect(f.items[0].url).toBe('https://news.example/rdf-1');
  });

  it('JSON Feed 1.1: url or external_url, title or summary, date_published', () => {
    const f = parseFeed(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'JSON wire',
        items: [
          { id: 1, url: 'https://news.example/j1', title: 'JSON one', date_published: '2025-06-13T00:00:00Z', summary: 'S' },
          { id: 'two', external_url: 'https://other.example/j2', content_text: 'Only text, no title here' },
          { id: 3, title: 'No URL' },
          'garbage',
        ],
      }),
      { baseUrl: base, contentType: 'application/feed+json' },
    );
    expect(f.format).toBe('json');
    expect(f.skipped).toBe(2);
    expect(f.items.map((i) => [i.url, i.title, i.guid])).toEqual([
      ['https://news.example/j1', 'JSON one', '1'],
      ['https://other.example/j2', 'Only text, no title here', 'two'],
    ]);
  });

  it.each([
    ['plain text', 'this is not a feed'],
    ['HTML page', '<!doctype html><html><body>hi</body></html>'],
    ['truncated RSS', '<?xml version="1.0"?><rss><channel><item><title>cut off'],
    ['invalid JSON', '{"items": [ '],
    ['JSON without items', '{"hello": "world"}'],
    ['JSON Feed of another version', '{"version": "https://jsonfeed.org/version/9", "items": []}'],
  ])('%s throws FeedParseError', (_label, body) => {
    expect(() => parseFeed(body, { baseUrl: base })).toThrow(FeedParseError);
  });

  it('ignores links that are not http(s)', () => {
    const f = parseFeed('<rss><channel><item><title>x</title><link>javascript:alert(1)</link></item></channel></rss>', { baseUrl: base });
    expect(f.items).toEqual([]);
    expect(f.skipped).toBe(1);
  });
});
