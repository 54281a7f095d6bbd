/**
 * Staff decisions applied to a month's computed weights (pure). The detector already skips a cleared
 * flag and zeroes the members of a confirmed one (rules/weights.ts); this step makes a cleared
 * account count at full weight: every weight below 1 of an account that staff cleared (by a decision
 * on the account, or on a flag it belongs to) is dropped, unless the account is also in a confirmed
 * decision (confirmed wins). Flags stay as detected: staff see them with their decision.
 */
import { createHash } from 'node:crypto';
import type { Flag, Override, Weighted } from './model.js';

/** A decision on one account rather than a detected flag. */
export const ACCOUNT_KIND = 'account';

/** The accounts a month's decisions clear (cleared somewhere, confirmed nowhere). */
function clearedAccounts(overrides: readonly Override[]): Set<number> {
  const confirmed = new Set(overrides.filter((o) => o.decision === 'confirmed').flatMap((o) => o.members));
  return new Set(overrides.filter((o) => o.decision === 'cleared').flatMap((o) => o.members.filter((u) => !confirmed.has(u))));
}

export function applyOverrides<D extends { flags: Flag[]; weights: Weighted[] }>(d: D, overrides: readonly Override[]): D {
  const cleared = clearedAccounts(overrides);
  if (cleared.size === 0) return d;
  return { ...d, weights: d.weights.filter((w) => !cleared.has(w.userId)) };
}

/**
 * The stable public id of a flag: `<month>.<kind>.<12 hex>` of SHA-256 over month, kind and sorted
 * members. The recompute replaces a month's flag rows, so their serial ids change; this one stays
 * as long as the detector finds the same group.
 */
export function flagPublicId(f: { month: string; kind: string; members: readonly number[] }): string {
  const h = createHash('sha256')
    .update(`${f.month}/${f.kind}/${[...f.members].sort((a, b) => a - b).join(',')}`)
    .digest('hex');
  return `${f.month}.${f.kind}.${h.slice(0, 12)}`;
}

export const FLAG_ID_PATTERN = /^(\d{4}-(?:0[1-9]|1[0-2]))\.([a-z_]{1,32})\.([0-9a-f]{12})$/;
