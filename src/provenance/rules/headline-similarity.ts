/**
 * Headline similarity for provenance: are two headlines the same story? Both are normalised
 * (normalizeHeadline) and compared with string-similarity's compareTwoStrings (Dice coefficient of
 * character bigrams). Identical normalised headlines score exactly 1.0.
 *
 * Normalisation makes the usual rewordings of one story meet: case, accents and punctuation go;
 * money and counts are written one way ("$100K", "$100,000" and "100 thousand" all become
 * "100000"; "five" becomes "5"); common tickers become names ("BTC" -> "bitcoin"); a few verbs
 * and nouns that outlets swap for each other map to one word; stop words, possessives and plural
 * "s" go; and the remaining words are sorted, so "SEC sues Coinbase" and "Coinbase sued by SEC"
 * compare equal in word order.
 *
 * HEADLINE_MATCH_THRESHOLD was chosen on the labelled pairs in
 * test/data/provenance-headline-pairs.ts (same story in other words vs different, mostly close,
 * stories): see test/unit/provenance-headline-similarity.test.ts, which prints the table and
 * fails if precision or recall on that set drop.
 *
 * Candidates for the text check come from the provenance headline index, whose keys are made in SQL
 * by provenance_normalize_headline, a port of normalizeHeadline (migration
 * 20261122T100000_provenance_headline_index; test/integration/provenance-headline-index.test.ts
 * checks that the two agree). Changing the normalisation here means a new migration that replaces
 * that function and recomputes the keys.
 */
import { compareTwoStrings } from 'string-similarity';

/** Two headlines with a similarity at or above this are treated as the same story. */
export const HEADLINE_MATCH_THRESHOLD = 0.55;

const NUMBER_WORDS: Record<string, string> = {
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
};

const MULTIPLIERS: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  t: 1e12,
  tn: 1e12,
  trillion: 1e12,
};

/** Words outlets use interchangeably in crypto headlines, mapped to one form. */
const SYNONYMS: Record<string, string> = {
  btc: 'bitcoin',
  xbt: 'bitcoin',
  eth: 'ethereum',
  ether: 'ethereum',
  sol: 'solana',
  usdt: 'tether',
  etfs: 'etf',
  tops: 'above',
  top: 'above',
  breaks: 'above',
  surpasses: 'above',
  crosses: 'above',
  exceeds: 'above',
  falls: 'below',
  drops: 'below',
  dips: 'below',
  slips: 'below',
  under: 'below',
  buys: 'buy',
  acquires: 'buy',
  acquire: 'buy',
  purchases: 'buy',
  launches: 'launch',
  debuts: 'launch',
  unveils: 'launch',
  rolls: 'launch',
  hacked: 'exploit',
  exploited: 'exploit',
  exploits: 'exploit',
  drained: 'exploit',
  drain: 'exploit',
  hack: 'exploit',
  sues: 'sue',
  sued: 'sue',
  lawsuit: 'sue',
  files: 'file',
  filing: 'file',
  filed: 'file',
  submits: 'file',
  approves: 'approve',
  approved: 'approve',
  greenlights: 'approve',
  begins: 'start',
  starts: 'start',
  repaying: 'repay',
  repayments: 'repay',
  steps: 'step',
  resigns: 'step',
  us: 'us',
  usa: 'us',
  america: 'us',
};

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'to',
  'in',
  'on',
  'at',
  'as',
  'by',
  'with',
  'from',
  'and',
  'or',
  'its',
  'it',
  'is',
  'are',
  'be',
  'been',
  'was',
  'were',
  'after',
  'amid',
  'into',
  'via',
  'this',
  'that',
  'new',
  'more',
  'another',
  'additional',
  'ever',
  'now',
  'over',
  'says',
  'report',
  'reports',
  'reportedly',
  'just',
  'first',
  'time',
  'crypto',
]);

function money(digits: string, mult: string | undefined): string {
  const n = Number(digits.replace(/,/g, ''));
  if (!Number.isFinite(n)) return digits;
  const factor = mult ? (MULTIPLIERS[mult.toLowerCase()] ?? 1) : 1;
  return String(Math.round(n * factor));
}

/** The comparable form of a headline (see the module comment). Pure and idempotent in effect. */
export function normalizeHeadline(headline: string): string {
  let s = headline
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  s = s.replace(/[\u2018\u2019\u201b\u2032]/g, "'").replace(/[\u201c\u201d]/g, '"');
  s = s.replace(/'s\b/g, '');
  // Amounts: "$1.5B", "1.5 billion", "100,000", "$100k" -> plain integers.
  s = s.replace(/\$?\s?(\d[\d,]*(?:\.\d+)?)\s?(k|thousand|mn|m|million|bn|b|billion|tn|t|trillion)?\b/gi, (_m, d: string, mult?: string) => ` ${money(d, mult)} `);
  s = s.replace(/exchange[- ]traded funds?/g, 'etf').replace(/\bu\.s\.(a\.)?|\bunited states( of america)?\b/g, 'us');
  const words = s
    .split(/[^a-z0-9-]+/)
    .flatMap((w) => w.split(/-(?=[a-z])|(?<=[a-z])-/))
    .map((w) => w.replace(/^-+|-+$/g, ''))
    .filter(Boolean)
    .map((w) => NUMBER_WORDS[w] ?? w)
    .map((w) => SYNONYMS[w] ?? w)
    .filter((w) => !STOP_WORDS.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  return [...new Set(words)].sort().join(' ');
}

/** Similarity of two headlines in [0, 1]; 1.0 when their normalised forms are identical. */
export function headlineSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  return similarityOfNormalized(normalizeHeadline(a), normalizeHeadline(b));
}

/** As headlineSimilarity, for callers that normalise once and compare many times. */
function similarityOfNormalized(na: string, nb: string): number {
  if (na === '' || nb === '') return 0;
  if (na === nb) return 1;
  const dice = compareTwoStrings(na, nb);
  return numbersConflict(na, nb) ? dice * NUMBER_CONFLICT_FACTOR : dice;
}

/**
 * Both headlines state figures and share none ("$320M" vs "$190M", "below $2K" vs "above $4K"):
 * almost always two stories that share a template, so the score is scaled down.
 */
const NUMBER_CONFLICT_FACTOR = 0.6;

function numbersOf(normalized: string): Set<string> {
  return new Set(normalized.split(' ').filter((w) => /^\d+$/.test(w)));
}

function numbersConflict(na: string, nb: string): boolean {
  const a = numbersOf(na);
  if (a.size === 0) return false;
  const b = numbersOf(nb);
  if (b.size === 0) return false;
  for (const x of a) if (b.has(x)) return false;
  return true;
}

export function isSameStory(similarity: number): boolean {
  return similarity >= HEADLINE_MATCH_THRESHOLD;
}
