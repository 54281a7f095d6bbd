/**
 * Feed parsing for wire ingestion: RSS 2.0, RSS 1.0 (RDF), Atom (cheerio in XML mode) and JSON Feed
 * 1.x. Pure: text in, items out. A body that is none of these, or an XML feed cut off before its
 * closing root tag, throws FeedParseError (the caller logs it and retries later).
 *
 * Items without a usable http(s) link, or without any title or summary text, are skipped and
 * counted. Links are resolved against the feed URL. Dates are the publisher's claim, parsed leniently
 * (RFC 822 and ISO 8601); an unparseable date becomes null.
 */
import { load, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';

export type FeedFormat = 'rss' | 'atom' | 'rdf' | 'json';

interface FeedItem {
  url: string;
  title: string;
  summary: string | null;
  guid: string | null;
  publishedAt: Date | null;
}

interface ParsedFeed {
  format: FeedFormat;
  title: string | null;
  items: FeedItem[];
  /** Entries dropped for lack of a link or text. */
  skipped: number;
}

export class FeedParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedParseError';
  }
}

const MAX_TITLE = 500;
const MAX_SUMMARY = 1000;

function clean(s: string, max: number): string {
  const text = /[<&]/.test(s) ? load(`<body>${s}</body>`).text() : s;
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

function parseDate(raw: string | null | undefined): Date | null {
  if (!raw) return null;
  const t = Date.parse(raw.trim());
  if (!Number.isFinite(t)) return null;
  const d = new Date(t);
  return d.getUTCFullYear() >= 1970 && d.getUTCFullYear() <= 9999 ? d : null;
}

function resolveLink(raw: string | null | undefined, base: string): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function elementChildren(el: AnyNode): Element[] {
  return ((el as Element).children ?? []).filter((c): c is Element => c.type === 'tag');
}

function child(el: AnyNode, ...names: string[]): Element | undefined {
  const wanted = names.map((n) => n.toLowerCase());
  return elementChildren(el).find((c) => wanted.includes(c.name.toLowerCase()));
}

function childText($: CheerioAPI, el: AnyNode, ...names: string[]): string | null {
  const c = child(el, ...names);
  if (!c) return null;
  const t = $(c).text();
  return t.trim() === '' ? null : t;
}

function finish(items: (Omit<FeedItem, 'url' | 'title'> & { url: string | null; title: string | null })[]): { items: FeedItem[]; skipped: number } {
  const out: FeedItem[] = [];
  let skipped = 0;
  for (const it of items) {
    const title = it.title ? clean(it.title, MAX_TITLE) : '';
    const summary = it.summary ? clean(it.summary, MAX_SUMMARY) : '';
    const headline = title || summary.slice(0, 200);
    if (!it.url || !headline) {
      skipped++;
      continue;
    }
    out.push({ url: it.url, title: headline, summary: summary || null, guid: it.guid?.trim().slice(0, 1000) || null, publishedAt: it.publishedAt });
  }
  return { items: out, skipped };
}

function parseJsonFeed(body: string, base: string): ParsedFeed {
  let doc: any;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new FeedParseError('body is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.items)) throw new FeedParseError('JSON body is not a JSON Feed (no items array)');
  if (doc.version !== undefined && !/^https:\/\/jsonfeed\.org\/version\/1/.test(String(doc.version))) {
    throw new FeedParseError(`unsupported JSON Feed version ${String(doc.version).slice(0, 60)}`);
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const { items, skipped } = finish(
    doc.items.map((i: any) => ({
      url: resolveLink(str(i?.url) ?? str(i?.external_url), base),
      title: str(i?.title),
      summary: str(i?.summary) ?? str(i?.content_text) ?? str(i?.content_html),
      guid: i?.id === undefined || i?.id === null ? null : String(i.id),
      publishedAt: parseDate(str(i?.date_published) ?? str(i?.date_modified)),
    })),
  );
  return { format: 'json', title: str(doc.title), items, skipped };
}

function atomLink(el: Element, base: string): string | null {
  const links = elementChildren(el).filter((c) => c.name.toLowerCase() === 'link');
  const pick =
    links.find((l) => (l.attribs.rel ?? 'alternate') === 'alternate' && (!l.attribs.type || /html/i.test(l.attribs.type))) ??
    links.find((l) => (l.attribs.rel ?? 'alternate') === 'alternate') ??
    links[0];
  return resolveLink(pick?.attribs.href, base);
}

function parseXmlFeed(body: string, base: string): ParsedFeed {
  const $ = load(body, { xml: true });
  const root = $.root()
    .children()
    .toArray()
    .find((n) => n.type === 'tag');
  const rootName = root?.name.toLowerCase();
  if (!root || !rootName || !['rss', 'feed', 'rdf:rdf', 'rdf'].includes(rootName)) {
    throw new FeedParseError(root ? `unknown feed root element <${root.name}>` : 'body is not an XML feed');
  }
  // htmlparser2 is lenient: a body cut off mid-document still parses, so insist on the closing tag.
  if (!new RegExp(`</${root.name.replace(':', '\\:')}\\s*>\\s*$`, 'i').test(body.trimEnd())) {
    throw new FeedParseError(`malformed feed: no closing </${root.name}>`);
  }
  if (rootName === 'feed') {
    const { items, skipped } = finish(
      elementChildren(root)
        .filter((e) => e.name.toLowerCase() === 'entry')
        .map((e) => ({
          url: atomLink(e, base),
          title: childText($, e, 'title'),
          summary: childText($, e, 'summary', 'content'),
          guid: childText($, e, 'id'),
          publishedAt: parseDate(childText($, e, 'published', 'updated', 'issued', 'modified')),
        })),
    );
    return { format: 'atom', title: childText($, root, 'title'), items, skipped };
  }
  const isRss = rootName === 'rss';
  const channel = child(root, 'channel');
  const itemParent = isRss ? channel : root;
  if (!itemParent) throw new FeedParseError('RSS feed without a <channel>');
  const { items, skipped } = finish(
    elementChildren(itemParent)
      .filter((e) => e.name.toLowerCase() === 'item')
      .map((e) => {
        const guidEl = child(e, 'guid');
        const guid = guidEl ? $(guidEl).text() : null;
        const guidIsLink = guidEl && guidEl.attribs.ispermalink !== 'false' && guidEl.attribs.isPermaLink !== 'false';
        return {
          url: resolveLink(childText($, e, 'link') ?? (guidIsLink ? guid : null) ?? (e.attribs['rdf:about'] || null), base),
          title: childText($, e, 'title'),
          summary: childText($, e, 'description', 'content:encoded', 'summary'),
          guid,
          publishedAt: parseDate(childText($, e, 'pubDate', 'dc:date', 'published', 'updated')),
        };
      }),
  );
  return { format: isRss ? 'rss' : 'rdf', title: channel ? childText($, channel, 'title') : null, items, skipped };
}

/** Parse a feed body; `baseUrl` (the feed URL) resolves relative links. */
export function parseFeed(body: string, opts: { baseUrl: string; contentType?: string }): ParsedFeed {
  const text = body.replace(/^\uFEFF/, '');
  const head = text.trimStart();
  const looksJson = /json/i.test(opts.contentType ?? '') || head.startsWith('{');
  if (looksJson) return parseJsonFeed(head, opts.baseUrl);
  if (!head.startsWith('<')) throw new FeedParseError('body is neither XML nor JSON');
  return parseXmlFeed(head, opts.baseUrl);
}
