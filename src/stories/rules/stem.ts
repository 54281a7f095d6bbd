/**
 * The Porter (1980) suffix stemmer for English words, so that the inflections and derivations two
 * outlets choose for one event meet: "trading"/"trade", "completed"/"completes", "surpassed"/
 * "surpasses", "investigating"/"investigation", "hits"/"hit". Steps 1a-5b of M. F. Porter, "An
 * algorithm for suffix stripping", Program 14(3), 1980. Input: a lower-case word of letters.
 */

function isConsonant(w: string, i: number): boolean {
  const c = w[i]!;
  if ('aeiou'.includes(c)) return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m, the number of vowel-consonant sequences of the stem: [C](VC)^m[V]. */
function measure(s: string): number {
  let m = 0;
  let i = 0;
  const n = s.length;
  while (i < n && isConsonant(s, i)) i += 1;
  while (i < n) {
    while (i < n && !isConsonant(s, i)) i += 1;
    if (i >= n) break;
    while (i < n && isConsonant(s, i)) i += 1;
    m += 1;
  }
  return m;
}

function hasVowel(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) if (!isConsonant(s, i)) return true;
  return false;
}

function endsDoubleConsonant(s: string): boolean {
  const n = s.length;
  return n >= 2 && s[n - 1] === s[n - 2] && isConsonant(s, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y ("hop", not "bow"). */
function endsCvc(s: string): boolean {
  const n = s.length;
  if (n < 3) return false;
  if (!isConsonant(s, n - 1) || isConsonant(s, n - 2) || !isConsonant(s, n - 3)) return false;
  return !'wxy'.includes(s[n - 1]!);
}

/** Replace the first matching suffix whose stem has measure > min; stop at the first suffix that matches. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], min: number): string {
  for (const [suffix, repl] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return measure(stem) > min ? stem + repl : w;
  }
  return w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['abli', 'able'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
];

const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

function step1(w: string): string {
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);

  let stripped = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    stripped = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    stripped = true;
  }
  if (stripped) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (suffix === 'ion' && !/[st]$/.test(stem)) return w;
    return measure(stem) > 1 ? stem : w;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}

/** The Porter stem of a lower-case word; words of two letters or fewer are returned as they are. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  let w = step1(word);
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}
