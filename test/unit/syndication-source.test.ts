import { describe, expect, it } from 'vitest';
import { renderAtom, renderJsonFeed, renderRss, type SyndicationMeta } from '../../src/feed/rules/syndication.js';

const meta: SyndicationMeta = {
  title: 't',
  description: 'd',
  homeUrl: 'https://x.example/',
  selfUrl: 'https://x.example/f',
  recordUrl: (id) => `https://x.example/${id}`,
  schemeBase: 'https://x.example/#',
};

const item = (url: string, source: string) => ({
  id: 1,
  headline: 'h',
  url,
  source,
  published_at: '2026-11-01T00:00:00.000Z',
  created_at: '2026-11-01T00:00:00.000Z',
  tags: [],
  token_symbols: [],
  token_addresses: [],
});

type Author = { name: string; url?: string };
const jsonAuthor = (url: string, source: string) => (JSON.parse(renderJsonFeed([item(url, source)], meta)) as { items: { authors?: Author[] }[] }).items[0].authors?.[0];

describe('syndication source URL', () => {
  it('is the origin of the article URL when the source is its host: scheme and port are kept', () => {
    const url = 'http://127.0.0.1:8080/x';
    expect(renderRss([item(url, '127.0.0.1')], meta)).toContain('<source url="http://127.0.0.1:8080/">127.0.0.1</source>');
    expect(renderAtom([item(url, '127.0.0.1')], meta)).toContain('<uri>http://127.0.0.1:8080/</uri>');
    expect(jsonAuthor(url, '127.0.0.1')).toEqual({ name: '127.0.0.1', url: 'http://127.0.0.1:8080/' });
  });

  it('keeps the www. host of the article when the source dropped it', () => {
    const url = 'https://www.coindesk.com/markets/a';
    expect(renderRss([item(url, 'coindesk.com')], meta)).toContain('<source url="https://www.coindesk.com/">coindesk.com</source>');
    expect(jsonAuthor(url, 'coindesk.com')?.url).toBe('https://www.coindesk.com/');
  });

  it('a host source unrelated to the article URL is its https home; a name source has no home URL', () => {
    expect(renderRss([item('https://wire.example/a', 'coindesk.com')], meta)).toContain('<source url="https://coindesk.com/">');
    expect(renderRss([item('https://wire.example/a', 'The Block')], meta)).toContain('<source url="https://wire.example/a">The Block</source>');
    expect(jsonAuthor('https://wire.example/a', 'The Block')).toEqual({ name: 'The Block' });
    expect(renderAtom([item('https://wire.example/a', 'The Block')], meta)).toContain('<author><name>The Block</name></author>');
  });
});
