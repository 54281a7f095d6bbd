/**
 * The asset tagger: which registry assets a headline (and optionally its summary or page text)
 * names, each with a salience in 0..1 and at most one primary. Pure; the lookup is precompiled by
 * compile.ts. The rules, in the order they apply at each word:
 *  1. EVM contract addresses (checksum-validated when mixed case) and base58 addresses resolve
 *     through the registry's deployments; a malformed address is ignored.
 *  2. The longest phrase starting at the word wins: a company ("Mercado Bitcoin", "Ripple") or a
 *     generic word ("stablecoins") tags nothing and consumes its words; an asset name or alias
 *     tags its asset, unless it is one ambiguous word ("Sky", "Plasma") without context.
 *  3. A cashtag ("$ETH") tags the asset owning the ticker.
 *  4. A bare ticker, spelled exactly (`ETH`, `stETH`, never `Eth`), of three or more characters,
 *     tags its asset unless it is an ambiguous word (ONE, NEAR, GAS, LINK) or the text shouts in
 *     capitals; then it needs context: a context word beside it ("NEAR token"), or it opens the
 *     headline before a price move ("NEAR Slides 4%"). A ticker only package data knows (not curated
 *     or staff) counts only when the text is about crypto: another asset is tagged or a crypto word
 *     is present.
 * A ticker or phrase held by several assets of the same standing is never tagged.
 */
import { isAddress } from 'viem';
import type { CompiledTagger, Phrase } from './compile.js';
import { decodeEntities, isShouting, tokenize, type Token } from './tokenize.js';

interface TagInput {
  title: string;
  /** Summary, description or fetched page text: mentions there weigh less than in the title. */
  body?: string | null;
}

export interface AssetTag {
  id: string;
  salience: number;
  primary: boolean;
}

interface Mention {
  id: string;
  inTitle: boolean;
  /** Position of the word in its field, 0..1. */
  at: number;
}

const EVM_ADDRESS = /\b0x[0-9a-fA-F]{40}\b/g;
const BASE58_ADDRESS = /\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g;

/** EIP-55: an all-lowercase or all-uppercase address carries no checksum; a mixed-case one must match it. */
function validEvmAddress(addr: string): boolean {
  const hex = addr.slice(2);
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() || isAddress(addr, { strict: true });
}

/** Addresses in the text, resolved; returns the text with them blanked out. */
function scanAddresses(t: CompiledTagger, text: string, hit: (ids: string[], index: number) => void): string {
  let out = text.replace(EVM_ADDRESS, (addr, index: number) => {
    if (validEvmAddress(addr)) hit(t.addresses.get(addr.toLowerCase()) ?? [], index);
    return ' '.repeat(addr.length);
  });
  if (t.addresses.size > 0 && /[1-9A-HJ-NP-Za-km-z]{32}/.test(out)) {
    out = out.replace(BASE58_ADDRESS, (addr, index: number) => {
      const ids = t.addresses.get(addr);
      if (!ids) return addr;
      hit(ids, index);
      return ' '.repeat(addr.length);
    });
  }
  return out;
}

function longestPhrase(t: CompiledTagger, tokens: readonly Token[], i: number): Phrase | undefined {
  const list = t.phrases.get(tokens[i].lower);
  if (!list) return undefined;
  outer: for (const p of list) {
    if (i + p.words.length > tokens.length) continue;
    for (let k = 1; k < p.words.length; k++) if (tokens[i + k].lower !== p.words[k] || !tokens[i + k].joined) continue outer;
    if (p.capitalOnly && !tokens[i].capital) continue;
    return p;
  }
  return undefined;
}

function hasContext(t: CompiledTagger, tokens: readonly Token[], i: number, len: number): boolean {
  if (tokens[i].cashtag) return true;
  const prev = tokens[i - 1];
  const next = tokens[i + len];
  return (prev !== undefined && t.context.has(prev.lower)) || (next !== undefined && (t.context.has(next.lower) || next.parenthesised));
}

const opensWithPriceMove = (t: CompiledTagger, tokens: readonly Token[], i: number, shouting: boolean): boolean =>
  i === 0 && !shouting && tokens[0].allCaps && tokens[1] !== undefined && t.priceMoves.has(tokens[1].lower);

interface FieldScan {
  mentions: Mention[];
  /** Tickers only package data knows, kept when the text turns out to be about crypto. */
  longTail: Mention[];
  cryptoWords: boolean;
}

function scanField(t: CompiledTagger, text: string, inTitle: boolean): FieldScan {
  const scan: FieldScan = { mentions: [], longTail: [], cryptoWords: false };
  const decoded = decodeEntities(text);
  const length = Math.max(1, decoded.length);
  const rest = scanAddresses(t, decoded, (ids, index) => ids.forEach((id) => scan.mentions.push({ id, inTitle, at: index / length })));
  const tokens = tokenize(rest);
  const shouting = isShouting(tokens, (w) => t.tickers.has(w));
  const at = (i: number) => i / Math.max(1, tokens.length);
  for (let i = 0; i < tokens.length;) {
    const p = longestPhrase(t, tokens, i);
    if (p) {
      if (p.kind === 'generic') scan.cryptoWords = true;
      if (p.kind === 'asset' && p.ids.length === 1 && (!p.ambiguous || hasContext(t, tokens, i, p.words.length))) scan.mentions.push({ id: p.ids[0], inTitle, at: at(i) });
      i += p.words.length;
      continue;
    }
    const tok = tokens[i];
    const ticker = tok.cashtag ? t.cashtags.get(tok.lower) : t.tickers.get(tok.text);
    if (ticker && ticker.ids.length === 1 && !t.generic.has(tok.lower)) {
      const plain = tok.cashtag || (tok.text.length >= 3 && !ticker.ambiguous && !shouting);
      if (plain || (tok.text.length >= 2 && (hasContext(t, tokens, i, 1) || opensWithPriceMove(t, tokens, i, shouting)))) {
        (ticker.priority > 0 && !tok.cashtag ? scan.longTail : scan.mentions).push({ id: ticker.ids[0], inTitle, at: at(i) });
      }
    }
    i++;
  }
  return scan;
}

function salience(ms: readonly Mention[]): number {
  const title = ms.filter((m) => m.inTitle);
  const count = Math.min(1, (ms.length - 1) / 2);
  const s = title.length > 0 ? 0.6 + 0.25 * (1 - Math.min(...title.map((m) => m.at))) + 0.15 * count : 0.3 + 0.1 * (1 - Math.min(...ms.map((m) => m.at))) + 0.1 * count;
  return Math.round(Math.min(1, s) * 100) / 100;
}

/** Tag one item: its assets by salience (highest first); `primary` when one asset clearly leads. */
export function tagText(t: CompiledTagger, input: TagInput): AssetTag[] {
  const scans = [scanField(t, input.title, true), ...(input.body ? [scanField(t, input.body, false)] : [])];
  const mentions = scans.flatMap((s) => s.mentions);
  if (mentions.length > 0 || scans.some((s) => s.cryptoWords)) mentions.push(...scans.flatMap((s) => s.longTail));
  const byId = new Map<string, Mention[]>();
  for (const m of mentions) byId.set(m.id, [...(byId.get(m.id) ?? []), m]);
  const tags = [...byId].map(([id, ms]) => ({ id, salience: salience(ms), primary: false })).sort((a, b) => b.salience - a.salience || a.id.localeCompare(b.id));
  if (tags.length > 0 && tags[0].salience >= 0.6 && (tags.length === 1 || tags[0].salience - tags[1].salience >= 0.15)) tags[0].primary = true;
  return tags;
}
