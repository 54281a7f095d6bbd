/**
 * What the assigner knows of one article or wire item: the words of its headline (and of its page
 * text or feed summary when there is one), the figures it states, keys for recognising the same
 * article under another URL, its source and its time. Built once per item; stored with the story
 * member so that later items can be compared without reading the item again.
 */
import { normalizeUrl } from '../../platform/url/normalize.js';
import { amounts, headlineText, isEvergreen, wordTokens } from './text.js';

export interface StoryItemInput {
  title: string;
  url: string | null;
  source: string | null;
  /** Milliseconds since the epoch: the claimed publication time when plausible, else the observation time. */
  at: number;
  /** Page title/description/text or the feed's summary, when known. */
  text?: string | null;
}

export interface ItemFeatures {
  /** Headline words (text.ts), each once. */
  words: string[];
  /** Words of the page text or summary that are not headline words (at most MAX_TEXT_WORDS). */
  textWords: string[];
  /** Figures of the headline (text.ts `amounts`). */
  figures: number[];
  /** The headline's words joined: equal keys are the same headline. */
  titleKey: string;
  /** Normalised URL without scheme and "www.", or null. */
  urlKey: string | null;
  /** The URL's last path segment when it is a descriptive slug (four words or more), or null. */
  slugKey: string | null;
  /** Who published it: the URL's host without "www." when there is a URL, else the source name. */
  sourceKey: string;
  at: number;
  /**
   * The headline names no event: a buyer's guide, a review or an explainer ("10 Best Crypto
   * Exchanges of December 2023", "… review: …", "What is …"). Matched only as a copy. Absent on
   * members stored before the field existed: they compare as not evergreen.
   */
  evergreen?: boolean;
}

const MAX_TEXT_WORDS = 60;
const MIN_SLUG_WORDS = 4;

export function itemFeatures(item: StoryItemInput): ItemFeatures {
  const headline = headlineText(item.title);
  const words = wordTokens(headline);
  const own = new Set(words);
  const textWords = item.text
    ? wordTokens(item.text)
        .filter((w) => !own.has(w))
        .slice(0, MAX_TEXT_WORDS)
    : [];
  const normalized = item.url ? normalizeUrl(item.url) : null;
  const urlKey = normalized ? normalized.replace(/^https?:\/\/(www\.)?/, '') : null;
  return {
    words,
    textWords,
    figures: amounts(headline),
    titleKey: [...words].sort().join(' '),
    urlKey,
    slugKey: urlKey ? slugOf(urlKey) : null,
    sourceKey: sourceKeyOf(urlKey, item.source),
    at: item.at,
    ...(isEvergreen(headline) ? { evergreen: true } : {}),
  };
}

function slugOf(urlKey: string): string | null {
  const path = urlKey.replace(/[?#].*$/, '');
  const segments = path.split('/').slice(1).filter(Boolean);
  const last = segments[segments.length - 1];
  if (!last) return null;
  const slug = last.toLowerCase().replace(/\.(html?|php|aspx?)$/, '');
  const parts = slug.split(/[-_]+/).filter((p) => /[a-z]/.test(p));
  return parts.length >= MIN_SLUG_WORDS ? parts.join('-') : null;
}

function sourceKeyOf(urlKey: string | null, source: string | null): string {
  const host = urlKey ? urlKey.split(/[/?#]/)[0]! : '';
  // An aggregator's link names the aggregator, not the outlet: prefer the source name there.
  if (host && !AGGREGATOR_HOSTS.has(host)) return host;
  return (source ?? host).trim().toLowerCase() || 'unknown';
}

const AGGREGATOR_HOSTS = new Set(['cryptopanic.com', 'news.google.com']);
