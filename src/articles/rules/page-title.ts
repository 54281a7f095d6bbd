/**
 * Headline from a page's HTML, for submissions without a headline. Pure: no I/O.
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

/** The page title, or null when the page has none. */
export function extractPageTitle(html: string): string | null {
  const $ = cheerio.load(html);
  const candidates = [
    $('meta[property="og:title" i]').attr('content'),
    $('meta[name="og:title" i]').attr('content'),
    $('meta[name="twitter:title" i]').attr('content'),
    $('meta[property="twitter:title" i]').attr('content'),
    $('head title').first().text(),
    $('title').first().text(),
  ];
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const cleaned = cleanHeadline(decodeLeftoverEntities(c));
    if (cleaned) return cleaned;
  }
  return null;
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
