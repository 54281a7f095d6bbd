/**
 * Syndication formats of the approved feed: RSS 2.0, Atom 1.0 (RFC 4287) and JSON Feed
 * 1.1. Pure renderers over feed items; the route (src/feed/routes.ts) picks the items
 * with the feed's own filters and caches the bytes.
 *
 * Every item carries: the headline (title), the article URL (link), the publication time, the
 * source, the tags and token symbols as categories (RSS `category domain="tag"|"token_symbol"`,
 * Atom `category scheme=...`, JSON Feed `tags` plus `_squid.token_symbols`), and the URL of the
 * article record on this API (RSS guid, Atom id and `link rel="related"`, JSON Feed id). JSON Feed
 * items also carry `_squid.story_id`, and with collapse=story `_squid.story_size` / `story_sources`.
 * Text is XML-escaped (& < > " ') and characters XML 1.0 forbids (C0 controls other than tab, CR,
 * LF; lone surrogates; U+FFFE/U+FFFF) are dropped; emoji and other non-ASCII text pass as UTF-8.
 */

interface SyndicationItem {
  id: number;
  headline: string;
  url: string;
  source: string;
  published_at: string | null;
  created_at: string;
  tags: string[];
  token_symbols: string[];
  token_addresses: string[];
  story_id?: number | null;
  /** collapse=story only: the story's member and independent-source counts. */
  story_size?: number | null;
  story_sources?: number | null;
}

export interface SyndicationMeta {
  title: string;
  description: string;
  /** The public home of the feed (the API's article list). */
  homeUrl: string;
  /** This document's own URL (with its query string). */
  selfUrl: string;
  /** URL of the JSON record of an article. */
  recordUrl: (id: number) => string;
  /** Scheme URIs for Atom categories. */
  schemeBase: string;
}

const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function xmlEscape(s: string): string {
  return s.replace(XML_FORBIDDEN, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

const when = (i: SyndicationItem) => new Date(i.published_at ?? i.created_at);

/** The newest publication time among the items (the feed's updated time), or the epoch for an empty feed. */
export function newestTime(items: readonly SyndicationItem[]): Date {
  let t = 0;
  for (const i of items) t = Math.max(t, when(i).getTime());
  return new Date(t);
}

/** The origin of an http(s) URL with a trailing slash, and its host without `www.`; null when it does not parse. */
function originOf(url: string): { home: string; host: string } | null {
  if (!URL.canParse(url)) return null;
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return { home: `${u.origin}/`, host: u.hostname.replace(/^www\./, '') };
}

/**
 * A source's home URL: the origin of the article URL (its scheme, host and port) when the source is
 * that URL's host; `https://<source>/` when the source is another host name; otherwise null.
 */
function sourceHome(i: SyndicationItem): string | null {
  const origin = originOf(i.url);
  if (origin && origin.host === i.source.toLowerCase()) return origin.home;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(i.source) ? `https://${i.source}/` : null;
}

export function renderRss(items: readonly SyndicationItem[], meta: SyndicationMeta): string {
  const e = xmlEscape;
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '<channel>',
    `<title>${e(meta.title)}</title>`,
    `<link>${e(meta.homeUrl)}</link>`,
    `<description>${e(meta.description)}</description>`,
    `<atom:link href="${e(meta.selfUrl)}" rel="self" type="application/rss+xml"/>`,
    `<lastBuildDate>${newestTime(items).toUTCString()}</lastBuildDate>`,
    '<docs>https://www.rssboard.org/rss-specification</docs>',
  ];
  for (const i of items) {
    out.push('<item>', `<title>${e(i.headline)}</title>`, `<link>${e(i.url)}</link>`);
    out.push(`<guid isPermaLink="true">${e(meta.recordUrl(i.id))}</guid>`);
    out.push(`<pubDate>${when(i).toUTCString()}</pubDate>`);
    const home = sourceHome(i);
    if (i.source) out.push(home ? `<source url="${e(home)}">${e(i.source)}</source>` : `<source url="${e(i.url)}">${e(i.source)}</source>`);
    for (const t of i.tags) out.push(`<category domain="tag">${e(t)}</category>`);
    for (const s of i.token_symbols) out.push(`<category domain="token_symbol">${e(s)}</category>`);
    out.push('</item>');
  }
  out.push('</channel>', '</rss>', '');
  return out.join('\n');
}

export function renderAtom(items: readonly SyndicationItem[], meta: SyndicationMeta): string {
  const e = xmlEscape;
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${e(meta.selfUrl)}</id>`,
    `<title>${e(meta.title)}</title>`,
    `<subtitle>${e(meta.description)}</subtitle>`,
    `<updated>${newestTime(items).toISOString()}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${e(meta.selfUrl)}"/>`,
    `<link rel="alternate" type="application/json" href="${e(meta.homeUrl)}"/>`,
    `<author><name>${e(meta.title)}</name></author>`,
  ];
  for (const i of items) {
    const t = when(i).toISOString();
    out.push('<entry>', `<id>${e(meta.recordUrl(i.id))}</id>`, `<title type="text">${e(i.headline)}</title>`);
    out.push(`<link rel="alternate" type="text/html" href="${e(i.url)}"/>`);
    out.push(`<link rel="related" type="application/json" href="${e(meta.recordUrl(i.id))}"/>`);
    out.push(`<published>${t}</published>`, `<updated>${t}</updated>`);
    const home = i.source ? sourceHome(i) : null;
    if (i.source) out.push(`<author><name>${e(i.source)}</name>${home ? `<uri>${e(home)}</uri>` : ''}</author>`);
    for (const tag of i.tags) out.push(`<category term="${e(tag)}" scheme="${e(meta.schemeBase)}tag"/>`);
    for (const s of i.token_symbols) out.push(`<category term="${e(s)}" scheme="${e(meta.schemeBase)}token_symbol" label="${e(s)}"/>`);
    out.push(`<summary type="text">${e(i.headline)}${i.source ? ` (${e(i.source)})` : ''}</summary>`);
    out.push('</entry>');
  }
  out.push('</feed>', '');
  return out.join('\n');
}

function authorOf(i: SyndicationItem): { name: string; url?: string } {
  const home = sourceHome(i);
  return home ? { name: i.source, url: home } : { name: i.source };
}

/** JSON Feed 1.1 (https://jsonfeed.org/version/1.1); extension fields under `_squid`. */
export function renderJsonFeed(items: readonly SyndicationItem[], meta: SyndicationMeta): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: meta.title,
    description: meta.description,
    home_page_url: meta.homeUrl,
    feed_url: meta.selfUrl,
    language: 'en',
    items: items.map((i) => ({
      id: meta.recordUrl(i.id),
      url: i.url,
      title: i.headline,
      content_text: i.source ? `${i.headline} (${i.source})` : i.headline,
      date_published: when(i).toISOString(),
      ...(i.source ? { authors: [authorOf(i)] } : {}),
      tags: [...i.tags, ...i.token_symbols.map((s) => `$${s}`)],
      _squid: {
        article_id: i.id,
        record_url: meta.recordUrl(i.id),
        source: i.source,
        tags: i.tags,
        token_symbols: i.token_symbols,
        token_addresses: i.token_addresses,
        story_id: i.story_id ?? null,
        ...(i.story_size !== undefined ? { story_size: i.story_size, story_sources: i.story_sources ?? null } : {}),
      },
    })),
  });
}
