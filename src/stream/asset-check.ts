/**
 * The asset filter's registry check at subscription time (WebSocket handshake and SSE request): a
 * filter naming an asset id the registry does not know is refused with 400 unknown_asset naming it,
 * as on GET /api/v1/news/ and GET /api/v1/events/. The ws process is given the look-up by its entry
 * point (src/bin/ws.ts); without one (tests of the broadcaster alone) every well-formed id passes.
 */
import type { StreamFilter } from './rules/filter.js';

/** The ids among `ids` the registry does not know. */
export type UnknownAssets = (ids: string[]) => Promise<string[]>;

/** The first unknown id of the filter, null when all are known, undefined when the look-up failed. */
export async function unknownAssetOf(filter: StreamFilter | null, lookup: UnknownAssets | undefined): Promise<string | null | undefined> {
  if (!filter?.assets || !lookup) return null;
  try {
    return (await lookup([...filter.assets].sort()))[0] ?? null;
  } catch {
    return undefined;
  }
}

/** The error answer for an unknown id (or a failed look-up), in the API's error shape. */
export function assetRejection(unknown: string | undefined): { status: number; code: string; message: string; details: Record<string, unknown> | null } {
  if (unknown === undefined) return { status: 503, code: 'unavailable', message: 'the asset registry is unavailable; retry shortly', details: null };
  return { status: 400, code: 'unknown_asset', message: `unknown asset: ${unknown}`, details: { parameter: 'asset', value: unknown } };
}
