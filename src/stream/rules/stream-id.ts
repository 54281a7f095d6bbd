/**
 * Redis stream entry ids ("<ms>-<seq>", both unsigned 64-bit decimals). Ids from Redis carry no
 * leading zeros, so two parts compare by length first and then as text; ids from clients go
 * through parseStreamId() first, which normalises them.
 */

export type StreamId = string;

/** The id before every entry; used as "nothing read yet". */
export const ZERO_ID: StreamId = '0-0';

const ID_RE = /^(\d{1,20})-(\d{1,20})$/;
const U64_MAX = (1n << 64n) - 1n;

/** A normalised id, or null when `text` is not a complete stream id within 64-bit range. */
export function parseStreamId(text: string): StreamId | null {
  const m = ID_RE.exec(text);
  if (!m) return null;
  const ms = BigInt(m[1]);
  const seq = BigInt(m[2]);
  if (ms > U64_MAX || seq > U64_MAX) return null;
  return `${ms}-${seq}`;
}

function comparePart(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative, zero or positive as a sorts before, equal to or after b. Both must be normalised. */
export function compareIds(a: StreamId, b: StreamId): number {
  const da = a.indexOf('-');
  const db = b.indexOf('-');
  return comparePart(a.slice(0, da), b.slice(0, db)) || comparePart(a.slice(da + 1), b.slice(db + 1));
}

export function maxId(a: StreamId, b: StreamId): StreamId {
  return compareIds(a, b) >= 0 ? a : b;
}

/** The greatest id that sorts before `id` (ZERO_ID has none and is returned as is). */
export function previousId(id: StreamId): StreamId {
  const [ms, seq] = id.split('-').map(BigInt);
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  if (ms > 0n) return `${ms - 1n}-${U64_MAX}`;
  return ZERO_ID;
}
