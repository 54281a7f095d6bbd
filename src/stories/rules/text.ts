/**
 * Headline text for story assignment: the words two outlets share when they report one event.
 *
 * `headlineText` decodes HTML entities that feeds leave in titles ("&#039;", "&amp;") and drops a
 * trailing outlet name ("… - Reuters", "… | by A. Writer | Dec, 2023"). `wordTokens` turns text
 * into comparable words: lower case, accents off, stop words and headline filler off, phrases to
 * one word ("justice department" -> "doj"), tickers to names ("BTC" -> "bitcoin"), the Porter
 * stemmer ("launches", "launched", "launching" -> "launch"), synonym sets on stems ("soars",
 * "surged" -> "rise"), a number with its unit as one word of its value ("$25M" -> "#25000000").
 * `isEvergreen` tells headlines that name no event. `amounts` reads figures with their unit ("$3.36B", "3 billion", "42,000", "20%")
 * as numbers, so "$3.3B" and "$3.36 billion" can be recognised as one figure.
 */

import { porterStem } from './stem.js';

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };

/** Feed titles often carry HTML entities; decode the common named ones and every numeric one. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[body.toLowerCase()] ?? m;
  });
}

const OUTLET_TAIL = /\s+(?:-|–|—|\|)\s+([^-–—|]{1,60})$/;

/** The headline without entities, a trailing outlet name or a trailing "(Cryptocurrency:BTC-USD)". */
export function headlineText(title: string): string {
  let s = decodeEntities(title).replace(/\s+/g, ' ').trim();
  s = s.replace(/\s*\((?:Cryptocurrency|NASDAQ|NYSE):[^)]*\)\s*$/i, '');
  s = s.replace(/\s+\|\s+by\s+.*$/i, '');
  for (let i = 0; i < 2; i += 1) {
    const m = OUTLET_TAIL.exec(s);
    if (!m || m[1]!.trim().split(/\s+/).length > 4) break;
    s = s.slice(0, m.index).trim();
  }
  return s;
}

/**
 * Headlines that name no event and recur from outlet to outlet, month to month: buyer's guides
 * ("8 Best Crypto Wallets of December 2023", "Top 10 …"), reviews ("Bitcoin IRA review: …") and
 * explainers ("What is market manipulation …", "How to buy …"). Their shared words say nothing
 * about one event, so they are matched only as copies.
 */
const EVERGREEN = [/^(?:the\s+)?(?:\d+\s+)?best\b/i, /^top\s+\d+\b/i, /\breview:/i, /^(?:what\s+(?:is|are)|how\s+to)\b/i];

export function isEvergreen(headline: string): boolean {
  return EVERGREEN.some((re) => re.test(headline));
}

const STOP_WORDS = new Set(
  (
    'a an the of for to in on at as by with from and or but its it is are be been was were has have had ' +
    'after amid into via this that these those new more most another additional ever now over under says ' +
    'said say report reports reportedly just first time will would could can may might should here what ' +
    'why how who when where which whats heres than then there their they them his her he she we our you ' +
    'your i my me us not no yes up down out off about again also still only so if all any some just one ' +
    'while during before since until against between within without per vs co com'
  ).split(' '),
);

const SYNONYMS: Record<string, string> = {
  btc: 'bitcoin',
  xbt: 'bitcoin',
  eth: 'ethereum',
  ether: 'ethereum',
  usdt: 'tether',
  etfs: 'etf',
  bankruptcy: 'bankrupt',
  cryptocurrency: 'crypto',
  cryptocurrencies: 'crypto',
  cryptos: 'crypto',
  u: 'us',
  usa: 'us',
  america: 'us',
  american: 'us',
  korean: 'korea',
  chinese: 'china',
  japanese: 'japan',
  russian: 'russia',
  british: 'uk',
  hacker: 'hack',
  hackers: 'hack',
  heist: 'hack',
  heists: 'hack',
  exploit: 'hack',
  exploited: 'hack',
  seizure: 'seize',
  seizes: 'seize',
  seized: 'seize',
  purchase: 'buy',
  purchases: 'buy',
  buys: 'buy',
  bought: 'buy',
  acquires: 'buy',
  acquire: 'buy',
  files: 'file',
  filed: 'file',
  filing: 'file',
  lawsuit: 'sue',
  sues: 'sue',
  sued: 'sue',
};

/** A number with its unit, not part of a word ("co2", "x3", "1st"). */
const NUMBER = /(?<![a-z0-9.])(\d+(?:\.\d+)?)(?:\s?(k|thousand|m|mn|mln|million|bn|b|billion|tn|t|trillion))?(?![a-z0-9])/g;
const MARK = 'zqn';

/**
 * A number becomes one word that carries its value, so that "$25M" and "$25 million", "43K" and
 * "43,000" are the same word, and "$3.36B" does not fall apart into "3" and "36b". Bare integers
 * of one digit and years are dropped: they tell stories apart poorly.
 */
function numberMarker(m: string, digits: string, unit: string | undefined): string {
  if (!unit && !digits.includes('.') && (digits.length < 2 || (digits.length === 4 && digits >= '1900' && digits <= '2100'))) return ' ';
  const value = Number(digits) * (unit ? UNIT[unit]! : 1);
  return Number.isFinite(value)
    ? ` ${MARK}${String(Number(value.toPrecision(12)))
        .replace('.', 'p')
        .replace(/[^0-9p]/g, '')} `
    : ' ';
}

/** The comparable words of a text, in order of first appearance, each once. */
export function wordTokens(text: string): string[] {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b\u2032`]/g, "'")
    .replace(/'s\b/g, '')
    .replace(/\bu\.s\.(a\.)?/g, ' us ')
    .replace(PHRASES, (m) => ` ${PHRASE_WORD[m.replace(/[\s-]+/g, ' ')] ?? m} `)
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(NUMBER, numberMarker);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of s.split(/[^a-z0-9]+/)) {
    if (raw === '' || STOP_WORDS.has(raw)) continue;
    if (raw.startsWith(MARK)) {
      const token = `#${raw.slice(MARK.length).replace('p', '.')}`;
      if (!seen.has(token)) {
        seen.add(token);
        out.push(token);
      }
      continue;
    }
    if (/^\d+$/.test(raw)) continue;
    const stemmed = stem(SYNONYMS[raw] ?? raw);
    const w = STEM_SYNONYMS.get(stemmed) ?? stemmed;
    if (w.length < 2 || STOP_WORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/**
 * Words that news about one event uses interchangeably, one set a line, matched after stemming (so
 * every inflection of a member counts): the first word of a set stands for the set. Price moves,
 * comparatives of high and low, the verbs of enforcement, deals and launches, and the names of
 * tokens and the companies, agencies and people that headlines abbreviate.
 */
const SYNONYM_SETS: readonly string[] = [
  'rise jump surge soar climb rally spike leap gain',
  'fall drop slide plunge crash decline sink tumble slump dip plummet selloff',
  'high higher highest ath',
  'low lower lowest',
  'big bigger biggest large larger largest',
  'probe investigate investigation inquiry scrutiny',
  'approve approval nod greenlight',
  'ban prohibit outlaw',
  'steal stole stolen theft',
  'charge indict indictment',
  'arrest detain',
  'launch debut unveil introduce',
  'partner partnership',
  'founder cofounder',
  'bankrupt insolvent insolvency',
  'xrp ripple',
  'dogecoin doge',
  'solana sol',
  'cardano ada',
  'litecoin ltc',
  'polygon matic',
  'doj justice',
  'york ny nyc',
  'hash hashrate',
  'bankman sbf',
  'zhao cz',
];

/** Names and terms written as several words or as one: each becomes one word before splitting. */
const PHRASE_WORD: Record<string, string> = {
  'justice department': 'doj',
  'department of justice': 'doj',
  'securities and exchange commission': 'sec',
  'hash rate': 'hashrate',
  'all time high': 'ath',
  'all time highs': 'ath',
  'sell off': 'selloff',
  'co founder': 'cofounder',
};
const PHRASES = new RegExp(
  `\\b(?:${Object.keys(PHRASE_WORD)
    .map((p) => p.replace(/ /g, '[\\s-]+'))
    .join('|')})\\b`,
  'g',
);

const STEM_SYNONYMS = new Map<string, string>();
for (const line of SYNONYM_SETS) {
  const [head, ...rest] = line.split(' ').map(porterStem);
  for (const w of rest) STEM_SYNONYMS.set(w!, head!);
}

/** Words with digits (figures with a unit, "co2") are kept as they are. */
function stem(w: string): string {
  return /\d/.test(w) ? w : porterStem(w);
}

const UNIT: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  mln: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  milliarden: 1e9,
  t: 1e12,
  tn: 1e12,
  trillion: 1e12,
};

const AMOUNT = /(\$|€|£)?\s?(\d[\d,]*(?:\.\d+)?)\s?(%|k|thousand|mn|mln|million|bn|b|billion|milliarden|tn|t|trillion)?(?![a-z0-9])/gi;

/**
 * The figures of a headline that identify an event: amounts with a currency sign or unit, and
 * percentages (as negative numbers, so they never equal an amount). Bare small numbers (years,
 * counts like "5 things") are left out: they tell stories apart poorly.
 */
export function amounts(text: string): number[] {
  const out: number[] = [];
  for (const m of decodeEntities(text).matchAll(AMOUNT)) {
    const [, currency, digits, unit] = m;
    const n = Number(digits!.replace(/,/g, ''));
    if (!Number.isFinite(n)) continue;
    if (unit === '%') {
      out.push(-n);
      continue;
    }
    const factor = unit ? (UNIT[unit.toLowerCase()] ?? 1) : 1;
    const value = n * factor;
    if (!currency && !unit && (value < 1000 || (value >= 1900 && value <= 2100 && !digits!.includes(',')))) continue;
    out.push(value);
  }
  return out;
}

/**
 * Two figures name the same amount: amounts equal within 10% ("$3.3B" and "$3.36B") or equal at
 * the precision of the rounder one ("more than $3bn" and "$3.36B"), percentages equal when rounded
 * to whole points.
 */
export function sameAmount(a: number, b: number): boolean {
  if (a === b) return true;
  if (Math.sign(a) !== Math.sign(b)) return false;
  if (a < 0) return Math.round(a) === Math.round(b);
  const x = Math.abs(a);
  const y = Math.abs(b);
  if (Math.abs(x - y) <= 0.1 * Math.max(x, y)) return true;
  const digits = Math.min(significantDigits(x), significantDigits(y));
  return Number(x.toPrecision(digits)) === Number(y.toPrecision(digits));
}

/** The digits a figure was stated with, trailing zeros not counted: 3e9 -> 1, 3.36e9 -> 3, 41000 -> 2. */
function significantDigits(x: number): number {
  const mantissa = Number(x.toPrecision(12)).toExponential().split('e')[0]!.replace('.', '');
  return Math.max(1, mantissa.replace(/0+$/, '').length);
}
