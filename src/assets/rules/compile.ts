/**
 * The tagger's precompiled lookup: phrase lists keyed by first word, tickers by exact spelling,
 * cashtags by lower case, deployments by address. Built once per registry version, so tagging a
 * headline costs a few map look-ups per word whatever the registry's size.
 */
import { SOURCE_PRIORITY, type AssetRecord } from './registry.js';
import { tokenize } from './tokenize.js';
import { COMPANY_NAMES, CONTEXT_WORDS, GENERIC_WORDS, PRICE_MOVE_WORDS } from './word-lists.js';

export interface Phrase {
  words: string[];
  kind: 'asset' | 'company' | 'generic';
  /** Asset ids of the strongest source holding the phrase (several: the phrase is shared, never tagged). */
  ids: string[];
  priority: number;
  /** A one-word name written with a capital ("Polygon") matches only a capitalised word. */
  capitalOnly: boolean;
  ambiguous: boolean;
}

interface Ticker {
  ids: string[];
  priority: number;
  ambiguous: boolean;
}

export interface CompiledTagger {
  phrases: Map<string, Phrase[]>;
  tickers: Map<string, Ticker>;
  cashtags: Map<string, Ticker>;
  /** Lowercase EVM address, or a base58 address as written -> asset ids. */
  addresses: Map<string, string[]>;
  context: Set<string>;
  priceMoves: Set<string>;
  generic: Set<string>;
  assetCount: number;
}

/** An alias spelled like a ticker (`MATIC`, `stETH`, `USDt`, `WLFi`), not like a name. */
const isTickerLike = (s: string): boolean => /^[a-z]{0,2}[A-Z0-9]{2,}[a-z]?$/.test(s) && /[A-Z]/.test(s);

function addPhrase(byKey: Map<string, Phrase>, p: Omit<Phrase, 'words'> & { text: string }): void {
  const words = tokenize(p.text).map((t) => t.lower);
  if (words.length === 0) return;
  const key = words.join(' ');
  const old = byKey.get(key);
  if (!old || (old.kind === 'asset' && p.kind !== 'asset') || (old.kind === 'asset' && p.priority < old.priority)) {
    byKey.set(key, { words, kind: p.kind, ids: p.ids, priority: p.priority, capitalOnly: p.capitalOnly, ambiguous: p.ambiguous });
  } else if (old.kind === 'asset' && p.kind === 'asset' && p.priority === old.priority && !old.ids.includes(p.ids[0])) {
    old.ids = [...old.ids, ...p.ids];
  }
}

function addTicker(map: Map<string, Ticker>, key: string, id: string, priority: number, ambiguous: boolean): void {
  const old = map.get(key);
  if (!old || priority < old.priority) map.set(key, { ids: [id], priority, ambiguous });
  else if (priority === old.priority && !old.ids.includes(id)) map.set(key, { ids: [...old.ids, id], priority, ambiguous: old.ambiguous || ambiguous });
}

function addressKey(caip19: string): string | undefined {
  const evm = /^eip155:\d+\/erc20:(0x[0-9a-fA-F]{40})$/.exec(caip19);
  if (evm) return evm[1].toLowerCase();
  const sol = /^solana:[^/]+\/token:([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(caip19);
  return sol?.[1];
}

function addAsset(t: CompiledTagger, phrases: Map<string, Phrase>, a: AssetRecord, ambiguousWords: Set<string>): void {
  const priority = SOURCE_PRIORITY[a.source];
  const names = [a.name, ...a.aliases.filter((x) => !isTickerLike(x))];
  if (isTickerLike(a.name) && a.name === a.symbol) names.shift();
  for (const name of names) {
    const words = tokenize(name);
    const single = words.length === 1;
    // A one-word name of two characters or without a letter ("0x", "00") is never a name match.
    if (single && (name.length < 3 || !/\p{L}/u.test(name))) continue;
    // A one-word name only package data knows ("Million", "Reserve", "Data") needs context like an ambiguous word.
    const ambiguous = single && (ambiguousWords.has(name.toLowerCase()) || priority > 0);
    addPhrase(phrases, { text: name, kind: 'asset', ids: [a.id], priority, capitalOnly: single && /^\p{Lu}/u.test(name), ambiguous });
  }
  for (const sym of [a.symbol, ...a.aliases.filter(isTickerLike)]) {
    if (!sym || /\s/.test(sym)) continue;
    const ambiguous = a.ambiguous || ambiguousWords.has(sym.toLowerCase());
    addTicker(t.tickers, sym, a.id, priority, ambiguous);
    addTicker(t.cashtags, sym.toLowerCase(), a.id, priority, ambiguous);
  }
  for (const d of a.deployments) {
    const key = addressKey(d);
    if (key) t.addresses.set(key, [...new Set([...(t.addresses.get(key) ?? []), a.id])]);
  }
}

export function compileTagger(assets: readonly AssetRecord[], ambiguous: Iterable<string>): CompiledTagger {
  const ambiguousWords = new Set([...ambiguous].map((w) => w.toLowerCase()));
  const t: CompiledTagger = {
    phrases: new Map(),
    tickers: new Map(),
    cashtags: new Map(),
    addresses: new Map(),
    context: new Set(CONTEXT_WORDS),
    priceMoves: new Set(PRICE_MOVE_WORDS),
    generic: new Set(GENERIC_WORDS.filter((g) => !g.includes(' '))),
    assetCount: assets.length,
  };
  const phrases = new Map<string, Phrase>();
  for (const text of COMPANY_NAMES) addPhrase(phrases, { text, kind: 'company', ids: [], priority: -1, capitalOnly: false, ambiguous: false });
  for (const text of GENERIC_WORDS) addPhrase(phrases, { text, kind: 'generic', ids: [], priority: -1, capitalOnly: false, ambiguous: false });
  for (const a of assets) addAsset(t, phrases, a, ambiguousWords);
  for (const p of phrases.values()) {
    const list = t.phrases.get(p.words[0]) ?? [];
    list.push(p);
    t.phrases.set(p.words[0], list);
  }
  for (const list of t.phrases.values()) list.sort((a, b) => b.words.length - a.words.length);
  return t;
}
