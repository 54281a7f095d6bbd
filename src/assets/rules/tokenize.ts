/** Word tokens of a headline or summary, with what the tagger needs to know about each. */

export interface Token {
  text: string;
  lower: string;
  start: number;
  /** Preceded by `$` ("$ETH"), and starts with a letter. */
  cashtag: boolean;
  /** First character is an upper-case letter. */
  capital: boolean;
  /** Every letter is upper case and there are at least two. */
  allCaps: boolean;
  /** Directly inside parentheses: "(LINK)". */
  parenthesised: boolean;
  /** Joined to the previous word by one space, dot or hyphen: it may continue a phrase ("Bitcoin Cash", "Pump.fun"), "Bitcoin, Gold" may not. */
  joined: boolean;
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };

/** Decode the HTML entities feeds leave in titles ("&#039;", "&amp;"). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (m, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

const WORD = /[\p{L}\p{N}]+/gu;
const LETTER = /\p{L}/u;
const UPPER = /\p{Lu}/u;

function caseOf(w: string): { capital: boolean; allCaps: boolean } {
  let letters = 0;
  let upper = 0;
  for (const ch of w) {
    if (!LETTER.test(ch)) continue;
    letters++;
    if (UPPER.test(ch)) upper++;
  }
  return { capital: UPPER.test(w[0] ?? ''), allCaps: letters >= 2 && upper === letters };
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let prevEnd = -2;
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    const start = m.index ?? 0;
    const before = text[start - 1];
    const after = text[start + w.length];
    out.push({
      text: w,
      lower: w.toLowerCase(),
      start,
      cashtag: before === '$' && LETTER.test(w[0]) && !LETTER.test(text[start - 2] ?? ' '),
      ...caseOf(w),
      parenthesised: before === '(' && after === ')',
      joined: start - prevEnd === 1 && (before === ' ' || before === '.' || before === '-' || before === '\u00a0'),
    });
    prevEnd = start + w.length;
  }
  return out;
}

/**
 * Most words that are not tickers shout ("BREAKING: ONE SURGES"): case says nothing about tickers
 * then. A list of tickers ("SPX, DXY, BTC, ETH") is not shouting.
 */
export function isShouting(tokens: readonly Token[], isTicker: (word: string) => boolean): boolean {
  let words = 0;
  let caps = 0;
  for (const t of tokens) {
    if (t.text.length < 3 || !LETTER.test(t.text[0]) || (t.allCaps && isTicker(t.text))) continue;
    words++;
    if (t.allCaps) caps++;
  }
  return words >= 3 && caps / words > 0.6;
}
