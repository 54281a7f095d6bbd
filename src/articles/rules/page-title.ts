/**
 * Headline from a page's HTML, for submissions without a headline, with the page's description and
 * claimed publication time (extractPage). Pure: no I/O.
 *
 * Order: <meta property="og:title">, <meta name="twitter:title"> (or property=), then the first
 * <title> of the document (head first, so an inline SVG's <title> never wins). Empty candidates are
 * skipped. Entities are decoded (cheerio decodes attributes and text; a second pass decodes
 * double-escaped ones such as `&amp;amp;`, common in og:title), control characters dropped,
 * whitespace folded to single spaces, and the result cut to MAX_HEADLINE_LENGTH at a word boundary.
 */
import * as cheerio from 'cheerio';

export const MAX_HEADLINE_LENGTH = 300;

const ENTITY = /&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/i;

function decodeLeftoverEntities(s: string): string {
  if (!ENTITY.test(s)) return s;
  return cheerio
    .load(`<p>${s.replace(/</g, '&lt;')}</p>`)('p')
    .text();
}

/** Whitespace folded, control characters removed, trimmed, cut to `max` characters at a word boundary. */
export function cleanHeadline(raw: string, max = MAX_HEADLINE_LENGTH): string {
  const s = raw
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function firstClean(candidates: readonly unknown[], max = MAX_HEADLINE_LENGTH): string | null {
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const cleaned = cleanHeadline(decodeLeftoverEntities(c), max);
    if (cleaned) return cleaned;
  }
  return null;
}

function titleOf($: cheerio.CheerioAPI): string | null {
  return firstClean([
    $('meta[property="og:title" i]').attr('content'),
    $('meta[name="og:title" i]').attr('content'),
    $('meta[name="twitter:title" i]').attr('content'),
    $('meta[property="twitter:title" i]').attr('content'),
    $('head title').first().text(),
    $('title').first().text(),
  ]);
}

export const MAX_DESCRIPTION_LENGTH = 1000;

/** What a fetched page says of itself: its title, description and the publication time it claims. */
export interface PageMeta {
  title: string;
  description: string | null;
  publishedAt: Date | null;
}

/** A JSON-LD block's datePublished (the object, an @graph member or an array member). */
function jsonLdPublished(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const nodes = Array.isArray(v) ? v : [v, ...(((v as { '@graph'?: unknown })?.['@graph'] as unknown[] | undefined) ?? [])];
  for (const n of nodes)
    if (n && typeof n === 'object' && typeof (n as { datePublished?: unknown }).datePublished === 'string') return (n as { datePublished: string }).datePublished;
  return undefined;
}

/** A time the page claims (ISO 8601 or another form Date parses), null when none parses. */
function publishedOf($: cheerio.CheerioAPI): Date | null {
  const candidates = [
    $('meta[property="article:published_time" i]').attr('content'),
    $('meta[name="article:published_time" i]').attr('content'),
    $('meta[itemprop="datePublished" i]').attr('content'),
    ...$('script[type="application/ld+json" i]')
      .toArray()
      .map((el) => jsonLdPublished($(el).text())),
    $('meta[name="pubdate" i]').attr('content'),
    $('meta[name="parsely-pub-date" i]').attr('content'),
    $('time[itemprop="datePublished" i]').attr('datetime'),
  ];
  for (const c of candidates) {
    if (typeof c !== 'string' || c.trim() === '') continue;
    const t = new Date(c.trim());
    if (!Number.isNaN(t.getTime())) return t;
  }
  return null;
}

/** The page's title (null without one), description and claimed publication time. */
export function extractPage(html: string): PageMeta | null {
  const $ = cheerio.load(html);
  const title = titleOf($);
  if (!title) return null;
  const description = firstClean(
    [
      $('meta[property="og:description" i]').attr('content'),
      $('meta[name="og:description" i]').attr('content'),
      $('meta[name="twitter:description" i]').attr('content'),
      $('meta[property="twitter:description" i]').attr('content'),
      $('meta[name="description" i]').attr('content'),
    ],
    MAX_DESCRIPTION_LENGTH,
  );
  return { title, description, publishedAt: publishedOf($) };
}

/** Provisional headline while the page title is being fetched: host (without www.) and path, e.g. "example.com/news/story". */
export function provisionalHeadline(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^www\./, '');
    let path = u.pathname.replace(/\/+$/, '');
    try {
      path = decodeURIComponent(path);
    } catch {
      /* keep the escaped form */
    }
    return cleanHeadline(`${host}${path}`) || host;
  } catch {
    return cleanHeadline(url);
  }
}
