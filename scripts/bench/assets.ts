/**
 * Asset tagger benchmark (docs/assets.md).
 *
 *   npm run bench:assets               quality on test/data/assets/headlines.jsonl (real, hand-labelled):
 *                                      micro precision and recall, and the error rate on occurrences
 *                                      of English-word tickers and of company names
 *   npm run bench:assets -- --speed    headlines/s of the tagger with the seed registry padded with
 *                                      synthetic assets to --assets=10000 or more, against a plain
 *                                      tokenise pass over the same headlines in the same run; then
 *                                      (own PostgreSQL and Redis, scripts/bench/assets-stack.ts) the
 *                                      page-title job's time and round trips without and with tagging (--pages=400)
 *                                      and the asset page's p50/p99 from the stored mindshare
 *                                      (--seconds=10); --no-stack skips that part
 *   --verbose                          list every false positive and false negative
 *
 * The registry is the seed registry built from the package data and the curated list (what the
 * migration seeds), with the default ambiguous words; no database is needed.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { compileTagger, type CompiledTagger } from '../../src/assets/rules/compile.js';
import type { AssetRecord } from '../../src/assets/rules/registry.js';
import { tagText } from '../../src/assets/rules/tagger.js';
import { decodeEntities, tokenize } from '../../src/assets/rules/tokenize.js';
import { COMPANY_NAMES, DEFAULT_AMBIGUOUS_WORDS } from '../../src/assets/rules/word-lists.js';
import { loadSeedRegistry } from '../../src/assets/seed-registry.js';
import { stackSpeed } from './assets-stack.js';

interface Labelled {
  id: string;
  title: string;
  labels: string[];
}

const argValue = (name: string, def: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? def);
const DATA = new URL('../../test/data/assets/headlines.jsonl', import.meta.url);
const items: Labelled[] = readFileSync(DATA, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Labelled);

const wordsOf = (s: string) => tokenize(decodeEntities(s)).map((t) => t.lower);
const containsPhrase = (words: string[], phrase: string[]) => words.some((_, i) => phrase.every((p, k) => words[i + k] === p));

/** English-word tickers and names of the registry: the word -> the assets it names. */
function wordTickers(registry: AssetRecord[]): Map<string, Set<string>> {
  const ambiguous = new Set(DEFAULT_AMBIGUOUS_WORDS);
  const out = new Map<string, Set<string>>();
  for (const a of registry) {
    for (const w of [a.symbol, a.name, ...a.aliases].map((x) => x.toLowerCase())) {
      if (ambiguous.has(w)) out.set(w, new Set([...(out.get(w) ?? []), a.id]));
    }
  }
  return out;
}

function quality(tagger: CompiledTagger, registry: AssetRecord[], verbose: boolean): void {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const traps = wordTickers(registry);
  const companies = COMPANY_NAMES.map(wordsOf);
  const trap = { word: 0, wordWrong: 0, company: 0, companyWrong: 0 };
  for (const item of items) {
    const got = new Set(tagText(tagger, { title: item.title }).map((t) => t.id));
    const want = new Set(item.labels);
    const falsePos = [...got].filter((id) => !want.has(id));
    const falseNeg = [...want].filter((id) => !got.has(id));
    tp += got.size - falsePos.length;
    fp += falsePos.length;
    fn += falseNeg.length;
    if (verbose && (falsePos.length || falseNeg.length)) console.log(`${item.id}  +${falsePos.join(',')}  -${falseNeg.join(',')}  ${item.title}`);
    const words = wordsOf(item.title);
    for (const w of words) {
      const named = traps.get(w);
      if (!named) continue;
      trap.word++;
      if ([...named].some((id) => falsePos.includes(id) || falseNeg.includes(id))) trap.wordWrong++;
    }
    for (const c of companies) {
      if (!containsPhrase(words, c)) continue;
      trap.company++;
      if (falsePos.length > 0) trap.companyWrong++;
    }
  }
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  console.log(`headlines: ${items.length} (${items.filter((i) => i.labels.length === 0).length} with no asset), labels: ${tp + fn}, registry: ${registry.length} assets`);
  console.log(`micro precision: ${precision.toFixed(3)} (tp ${tp}, fp ${fp})`);
  console.log(`micro recall:    ${recall.toFixed(3)} (fn ${fn})`);
  console.log(`English-word tickers: ${trap.wordWrong} wrong of ${trap.word} occurrences (${((100 * trap.wordWrong) / Math.max(1, trap.word)).toFixed(1)}%)`);
  console.log(`company names:        ${trap.companyWrong} wrong of ${trap.company} occurrences (${((100 * trap.companyWrong) / Math.max(1, trap.company)).toFixed(1)}%)`);
}

/** Synthetic assets (speed only): random tickers and two-word names, one ERC-20 deployment each. */
function padRegistry(registry: AssetRecord[], size: number): AssetRecord[] {
  const out = [...registry];
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (let i = 0; out.length < size; i++) {
    const sym = Array.from({ length: 4 + (i % 3) }, () => letters[Math.floor(rnd() * 26)]).join('');
    const address = `0x${i.toString(16).padStart(40, '0')}`;
    out.push({ id: `synthetic-${i}`, symbol: sym, name: `Synth ${sym} ${i}`, aliases: [], ambiguous: false, deployments: [`eip155:1/erc20:${address}`], source: 'token-list' });
  }
  return out;
}

function perSecond(fn: () => void, count: number, minMs = 2000): number {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    fn();
    n += count;
  }
  return n / ((performance.now() - start) / 1000);
}

function speed(registry: AssetRecord[]): void {
  const padded = padRegistry(registry, argValue('assets', 10_000));
  const t0 = performance.now();
  const tagger = compileTagger(padded, DEFAULT_AMBIGUOUS_WORDS);
  const compileMs = performance.now() - t0;
  const titles = items.map((i) => i.title);
  perSecond(() => titles.forEach((title) => tagText(tagger, { title })), titles.length, 500);
  const baseline = perSecond(() => titles.forEach((title) => tokenize(decodeEntities(title))), titles.length);
  const tagging = perSecond(() => titles.forEach((title) => tagText(tagger, { title })), titles.length);
  console.log(
    `registry: ${padded.length} assets (${registry.length} seed + ${padded.length - registry.length} synthetic, speed load only), compiled in ${compileMs.toFixed(0)} ms`,
  );
  console.log(`baseline (decode + tokenise only): ${Math.round(baseline).toLocaleString('en-US')} headlines/s`);
  console.log(`tagger:                            ${Math.round(tagging).toLocaleString('en-US')} headlines/s (${(baseline / tagging).toFixed(2)}x the baseline's time)`);
}

const registry = loadSeedRegistry();
if (process.argv.includes('--speed')) {
  speed(registry);
  if (!process.argv.includes('--no-stack'))
    await stackSpeed(
      items.map((i) => i.title),
      { pages: argValue('pages', 400), seconds: argValue('seconds', 10) },
    );
} else quality(compileTagger(registry, DEFAULT_AMBIGUOUS_WORDS), registry, process.argv.includes('--verbose'));
