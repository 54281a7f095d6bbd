/**
 * Webhook fan-out, run by the relay inside its transaction for each batch: the batch's public events
 * are matched against the active endpoints and one delivery row per (endpoint, event) is inserted,
 * so deliveries commit with the relay's claim of the events or not at all.
 *
 * Matching uses an in-memory EndpointIndex (src/webhooks/rules/match.ts) per database pool, rebuilt
 * only when webhook_endpoint_state.version moved (a trigger bumps it on every change that affects
 * matching). The version is read first, in the relay's transaction, then the endpoints: a change
 * committed in between makes the next batch reload. Cost per batch: one tiny read, the matching in
 * memory (microseconds per event) and one INSERT of the pairs.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { EndpointIndex, type EventAttrs } from './rules/match.js';
import type { OutboxRow } from '../platform/events/log.js';
import { activeEndpointsForMatching, endpointsVersion, insertDeliveries } from './queries.js';

const indexes = new WeakMap<object, { version: number; index: EndpointIndex }>();

/** The index for this pool, reloaded when the endpoints changed. `cacheKey` is the pool the relay runs on. */
async function endpointIndex(cacheKey: object, conn: Kysely<Database> | Transaction<Database>): Promise<EndpointIndex> {
  const version = await endpointsVersion(conn);
  const cached = indexes.get(cacheKey);
  if (cached && cached.version === version) return cached.index;
  const index = new EndpointIndex(await activeEndpointsForMatching(conn));
  indexes.set(cacheKey, { version, index });
  return index;
}

function parseAttrs(raw: string | null): EventAttrs | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as EventAttrs;
  } catch {
    return null;
  }
}

/** Insert the deliveries of the batch's public events; returns the endpoints that got new ones (to wake after commit). */
export async function fanOutWebhooks(cacheKey: object, trx: Kysely<Database> | Transaction<Database>, rows: readonly OutboxRow[]): Promise<number[]> {
  const events = rows.filter((r) => r.visibility === 'public');
  if (events.length === 0) return [];
  const index = await endpointIndex(cacheKey, trx);
  if (index.size === 0) return [];
  const endpointIds: number[] = [];
  const eventIds: number[] = [];
  const types: string[] = [];
  for (const ev of events) {
    for (const id of index.match(ev.type, parseAttrs(ev.attrs))) {
      endpointIds.push(id);
      eventIds.push(ev.event_id);
      types.push(ev.type);
    }
  }
  return insertDeliveries(trx, { endpointIds, eventIds, types });
}
