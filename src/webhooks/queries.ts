/**
 * Webhook endpoints and deliveries (db/migrations/20261125T100000_webhooks.ts): the API's reads and
 * writes, the relay's fan-out, the deliver job's claims and outcomes, the sweep and retention.
 *
 * Invariants:
 *  - An endpoint is "active" when enabled and its owning API key (if any) is not revoked; only
 *    active endpoints get deliveries and attempts.
 *  - A pending delivery is due when next_attempt_at <= now(). Runs of one endpoint never overlap
 *    (src/webhooks/deliver.ts), so an attempt writes once, at its outcome: attempts + 1, the next
 *    time or the final state. A worker that dies mid-attempt leaves the delivery due: it is sent
 *    again (same webhook-id) once its run is recovered, or woken by the sweep.
 *  - Disabling an endpoint cancels its pending deliveries in the same transaction.
 */
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Tier } from '../identity/index.js';
import type { Db } from '../platform/db.js';
import type { MatchableEndpoint } from './rules/match.js';

export type Owner = { kind: 'user'; userId: number } | { kind: 'api_key'; apiKeyId: string };
type Conn = Kysely<Database> | Transaction<Database>;

/** Advisory-lock namespace of the per-owner endpoint cap ("WH"). */
const CAP_LOCK_NS = 0x5748;

const ownerKey = (o: Owner) => (o.kind === 'user' ? `user:${o.userId}` : `key:${o.apiKeyId}`);
const ownerWhere = (o: Owner) => (o.kind === 'user' ? sql`user_id = ${o.userId}` : sql`api_key_id = ${o.apiKeyId}`);

const ENDPOINT_COLS = [
  'id',
  'url',
  'description',
  'event_types',
  'filter_tags',
  'filter_token_addresses',
  'filter_token_symbols',
  'filter_assets',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'failing_since',
  'secret_rotated_at',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Database['webhook_endpoints'])[];
/** An endpoint as the API shows it: the generated table's columns in ENDPOINT_COLS (never the secrets or the owner). */
export type EndpointRow = Pick<Selectable<Database['webhook_endpoints']>, (typeof ENDPOINT_COLS)[number]>;
const endpointCols = sql.raw(ENDPOINT_COLS.join(', '));

interface EndpointInput {
  url: string;
  description: string | null;
  eventTypes: string[];
  filters: { tags: string[] | null; token_addresses: string[] | null; token_symbols: string[] | null; assets?: string[] | null };
}

/** Tiers of the account's API keys that are not revoked (they raise its endpoint cap). */
export async function accountKeyTiers(db: Db, userId: number): Promise<Tier[]> {
  const rows = await db.selectFrom('api_keys').select('tier').where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
  return rows.map((r) => r.tier);
}

/** Create an endpoint unless the owner has `cap` already (checked under a per-owner lock, so two requests cannot both slip under it). */
export async function insertEndpoint(
  db: Db,
  owner: Owner,
  input: EndpointInput & { secretEnc: string },
  cap: number,
): Promise<{ ok: true; row: EndpointRow } | { ok: false; count: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${CAP_LOCK_NS}, hashtext(${ownerKey(owner)}))`.execute(trx);
    const c = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${ownerWhere(owner)}`.execute(trx);
    const count = Number(c.rows[0].n);
    if (count >= cap) return { ok: false as const, count };
    const r = await sql<EndpointRow>`
      INSERT INTO webhook_endpoints (user_id, api_key_id, url, description, event_types, filter_tags, filter_token_addresses, filter_token_symbols, filter_assets, secret_enc)
      VALUES (${owner.kind === 'user' ? owner.userId : null}, ${owner.kind === 'api_key' ? owner.apiKeyId : null}, ${input.url}, ${input.description},
              ${input.eventTypes}::text[], ${input.filters.tags}::text[], ${input.filters.token_addresses}::text[], ${input.filters.token_symbols}::text[], ${input.filters.assets ?? null}::text[], ${input.secretEnc})
      RETURNING ${endpointCols}`.execute(trx);
    return { ok: true as const, row: r.rows[0] };
  });
}

export async function getEndpoint(db: Db, owner: Owner, id: number): Promise<EndpointRow | undefined> {
  const r = await sql<EndpointRow>`SELECT ${endpointCols} FROM webhook_endpoints WHERE id = ${id} AND ${ownerWhere(owner)}`.execute(db);
  return r.rows[0];
}

export async function listEndpoints(db: Db, owner: Owner, page: number, perPage: number): Promise<{ rows: EndpointRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    sql<EndpointRow>`SELECT ${endpointCols} FROM webhook_endpoints WHERE ${ownerWhere(owner)} ORDER BY id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.execute(db),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${ownerWhere(owner)}`.execute(db),
  ]);
  return { rows: rows.rows, total: Number(total.rows[0].n) };
}

interface EndpointPatch {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  filters?: EndpointInput['filters'];
  enabled?: boolean;
}

const OWNER_DISABLED_REASON = 'disabled by its owner';

/** Apply a PATCH. Re-enabling clears the disabled reason and the failure clock; disabling cancels pending deliveries. */
export async function updateEndpoint(db: Db, owner: Owner, id: number, p: EndpointPatch): Promise<EndpointRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const sets = [sql`updated_at = now()`];
    if (p.url !== undefined) sets.push(sql`url = ${p.url}`);
    if (p.description !== undefined) sets.push(sql`description = ${p.description}`);
    if (p.eventTypes !== undefined) sets.push(sql`event_types = ${p.eventTypes}::text[]`);
    if (p.filters !== undefined) {
      sets.push(
        sql`filter_tags = ${p.filters.tags}::text[]`,
        sql`filter_token_addresses = ${p.filters.token_addresses}::text[]`,
        sql`filter_token_symbols = ${p.filters.token_symbols}::text[]`,
        sql`filter_assets = ${p.filters.assets ?? null}::text[]`,
      );
    }
    if (p.enabled === true) sets.push(sql`enabled = true`, sql`disabled_reason = NULL`, sql`disabled_at = NULL`, sql`failing_since = NULL`);
    if (p.enabled === false) {
      sets.push(
        sql`enabled = false`,
        sql`disabled_reason = CASE WHEN enabled THEN ${OWNER_DISABLED_REASON} ELSE disabled_reason END`,
        sql`disabled_at = coalesce(disabled_at, now())`,
      );
    }
    const r = await sql<EndpointRow>`UPDATE webhook_endpoints SET ${sql.join(sets)} WHERE id = ${id} AND ${ownerWhere(owner)} RETURNING ${endpointCols}`.execute(trx);
    const row = r.rows[0];
    if (row && !row.enabled) await cancelPending(trx, id);
    return row;
  });
}

export async function deleteEndpoint(db: Db, owner: Owner, id: number): Promise<boolean> {
  const r = await sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND ${ownerWhere(owner)}`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/** The current secret becomes the previous one (still signed with until `graceMs` from now); `secretEnc` is the new one. */
export async function rotateEndpointSecret(db: Db, owner: Owner, id: number, secretEnc: string, graceMs: number): Promise<EndpointRow | undefined> {
  const r = await sql<EndpointRow>`
    UPDATE webhook_endpoints
    SET previous_secret_enc = secret_enc, secret_enc = ${secretEnc},
        previous_secret_expires_at = now() + make_interval(secs => ${graceMs / 1000}), secret_rotated_at = now(), updated_at = now()
    WHERE id = ${id} AND ${ownerWhere(owner)}
    RETURNING ${endpointCols}`.execute(db);
  return r.rows[0];
}

// ---------------------------------------------------------------------------------------------
// Deliveries (API and CLI)

export interface DeliveryRow {
  id: number;
  endpoint_id: number;
  event_id: number | null;
  event_type: string;
  state: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  last_response_excerpt: string | null;
  created_at: Date;
  completed_at: Date | null;
}

const deliveryCols = sql.raw(
  'id, endpoint_id, event_id, event_type, state, attempts, next_attempt_at, last_attempt_at, last_status, last_error, last_latency_ms, last_response_excerpt, created_at, completed_at',
);

const asDelivery = (r: DeliveryRow): DeliveryRow => ({ ...r, id: Number(r.id), event_id: r.event_id === null ? null : Number(r.event_id) });

/** An endpoint's deliveries, newest first, ids below `before`; `limit + 1` rows tell whether more follow. */
export async function listDeliveries(db: Db, endpointId: number, q: { before?: number; limit: number; state?: string }): Promise<DeliveryRow[]> {
  const r = await sql<DeliveryRow>`
    SELECT ${deliveryCols} FROM webhook_deliveries
    WHERE endpoint_id = ${endpointId}
      ${q.before !== undefined ? sql`AND id < ${q.before}` : sql``}
      ${q.state !== undefined ? sql`AND state = ${q.state}` : sql``}
    ORDER BY id DESC LIMIT ${q.limit}`.execute(db);
  return r.rows.map(asDelivery);
}

/** A webhook.test delivery, due now; `payload` is its `data` as JSON text. */
export async function insertTestDelivery(db: Db, endpointId: number, payload: string): Promise<DeliveryRow> {
  const r = await sql<DeliveryRow>`
    INSERT INTO webhook_deliveries (endpoint_id, event_type, payload, next_attempt_at)
    VALUES (${endpointId}, 'webhook.test', ${payload}::json, now())
    RETURNING ${deliveryCols}`.execute(db);
  return asDelivery(r.rows[0]);
}

type RearmResult = { ok: true; row: DeliveryRow } | { ok: false; reason: 'not_found' | 'pending' | 'event_expired'; row?: DeliveryRow };

/**
 * Start a finished delivery over (same id, so the same webhook-id): pending, due now, attempt count
 * from 0. A pending one is left alone (it has its own schedule); one whose event retention deleted cannot be sent.
 */
export async function rearmDelivery(db: Db, endpointId: number, deliveryId: number): Promise<RearmResult> {
  return db.transaction().execute(async (trx) => {
    const cur = await sql<DeliveryRow & { has_payload: boolean }>`
      SELECT ${deliveryCols}, (d.payload IS NOT NULL OR EXISTS (SELECT 1 FROM event_log l WHERE l.event_id = d.event_id)) AS has_payload
      FROM webhook_deliveries d WHERE id = ${deliveryId} AND endpoint_id = ${endpointId} FOR UPDATE`.execute(trx);
    const row = cur.rows[0];
    if (!row) return { ok: false as const, reason: 'not_found' as const };
    if (row.state === 'pending') return { ok: false as const, reason: 'pending' as const, row: asDelivery(row) };
    if (!row.has_payload) return { ok: false as const, reason: 'event_expired' as const, row: asDelivery(row) };
    const r = await sql<DeliveryRow>`
      UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = now(), completed_at = NULL
      WHERE id = ${deliveryId} RETURNING ${deliveryCols}`.execute(trx);
    return { ok: true as const, row: asDelivery(r.rows[0]) };
  });
}

/** Every endpoint with its owner, for the admin CLI. */
export async function listAllEndpoints(db: Db) {
  const r = await sql<EndpointRow & { user_id: number | null; api_key_id: string | null; pending: number; last_delivery_at: Date | null }>`
    SELECT ${sql.raw(ENDPOINT_COLS.map((c) => `e.${c}`).join(', '))}, e.user_id, e.api_key_id,
           (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending') AS pending,
           (SELECT max(d.last_attempt_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.id) AS last_delivery_at
    FROM webhook_endpoints e ORDER BY e.id`.execute(db);
  return r.rows;
}

export async function findEndpointById(db: Db, id: number): Promise<(EndpointRow & { user_id: number | null; api_key_id: string | null }) | undefined> {
  const r = await sql<
    EndpointRow & { user_id: number | null; api_key_id: string | null }
  >`SELECT ${endpointCols}, user_id, api_key_id FROM webhook_endpoints WHERE id = ${id}`.execute(db);
  return r.rows[0];
}

export async function findDeliveryById(db: Db, id: number): Promise<DeliveryRow | undefined> {
  const r = await sql<DeliveryRow>`SELECT ${deliveryCols} FROM webhook_deliveries WHERE id = ${id}`.execute(db);
  return r.rows[0] && asDelivery(r.rows[0]);
}

// ---------------------------------------------------------------------------------------------
// Relay fan-out

/** Moves whenever the set of active endpoints, their types or filters change. */
export async function endpointsVersion(db: Conn): Promise<number> {
  const r = await sql<{ version: number }>`SELECT version FROM webhook_endpoint_state`.execute(db);
  return Number(r.rows[0]?.version ?? 0);
}

export async function activeEndpointsForMatching(db: Conn): Promise<MatchableEndpoint[]> {
  const r = await sql<{
    id: number;
    event_types: string[];
    filter_tags: string[] | null;
    filter_token_addresses: string[] | null;
    filter_token_symbols: string[] | null;
    filter_assets: string[] | null;
  }>`
    SELECT e.id, e.event_types, e.filter_tags, e.filter_token_addresses, e.filter_token_symbols, e.filter_assets
    FROM webhook_endpoints e LEFT JOIN api_keys k ON k.id = e.api_key_id
    WHERE e.enabled AND k.revoked_at IS NULL`.execute(db);
  return r.rows.map((x) => ({
    id: x.id,
    eventTypes: x.event_types,
    filters: { tags: x.filter_tags, token_addresses: x.filter_token_addresses, token_symbols: x.filter_token_symbols, assets: x.filter_assets },
  }));
}

/** One delivery per (endpoint, event) pair, due now; an existing pair is left alone. Returns the endpoints that got new deliveries. */
export async function insertDeliveries(db: Conn, pairs: { endpointIds: number[]; eventIds: number[]; types: string[] }): Promise<number[]> {
  if (pairs.endpointIds.length === 0) return [];
  const r = await sql<{ endpoint_id: number }>`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, next_attempt_at)
    SELECT p.endpoint_id, p.event_id, p.type, now()
    FROM unnest(${pairs.endpointIds}::int[], ${pairs.eventIds}::bigint[], ${pairs.types}::text[]) AS p(endpoint_id, event_id, type)
    ON CONFLICT (endpoint_id, event_id) DO NOTHING
    RETURNING endpoint_id`.execute(db);
  return [...new Set(r.rows.map((x) => x.endpoint_id))];
}

// ---------------------------------------------------------------------------------------------
// Deliver job

export interface DeliveryTarget {
  id: number;
  url: string;
  secret_enc: string;
  /** The previous secret while a rotation's grace period lasts, else null. */
  previous_secret_enc: string | null;
  failing_since: Date | null;
  active: boolean;
}

export interface DueDelivery {
  id: number;
  event_id: number | null;
  event_type: string;
  /** Attempts recorded so far. */
  attempts: number;
  /** The delivery's `data` as JSON text (the event as on the stream, or a test delivery's body); null when retention deleted the event. */
  data: string | null;
  /** When the event was recorded (a test delivery: when it was created). */
  occurred_at: Date;
}

/**
 * The endpoint as it is now (null when it is gone) and up to `limit` of its due deliveries, oldest
 * due first, leaving out `exclude` (the run's own attempts in flight); none for an inactive
 * endpoint. One read, no write: runs of one endpoint do not overlap (one BullMQ deduplication id),
 * so a delivery needs no lease while it is attempted. If the worker dies mid-attempt the delivery
 * is simply still due, and is sent again (same id) by the next run.
 */
export async function dueDeliveries(db: Db, endpointId: number, limit: number, exclude: readonly number[] = []): Promise<{ target: DeliveryTarget | null; due: DueDelivery[] }> {
  // webhook_due (the migration): a function, so that its plans are cached per connection.
  const r = await sql<{
    r: { target: (Omit<DeliveryTarget, 'failing_since'> & { failing_since: string | null }) | null; due: (Omit<DueDelivery, 'occurred_at'> & { occurred_at: string })[] };
  }>`
    SELECT webhook_due(${endpointId}, ${limit}, ${exclude as number[]}::bigint[]) AS r`.execute(db);
  const { target: t, due } = r.rows[0].r;
  return {
    target: t && { ...t, failing_since: t.failing_since ? new Date(t.failing_since) : null },
    due: due.map((x) => ({ ...x, id: Number(x.id), event_id: x.event_id === null ? null : Number(x.event_id), occurred_at: new Date(x.occurred_at) })),
  };
}

export interface AttemptRecord {
  startedAt: Date;
  state: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  status: number | null;
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
}

/**
 * The outcomes of attempts, in one statement (the deliver runs of a process share it: see
 * src/webhooks/outcome-writer.ts). A retry of an endpoint that was disabled meanwhile becomes cancelled.
 */
export async function recordAttempts(db: Db, list: readonly { id: number; a: AttemptRecord }[]): Promise<void> {
  if (list.length === 0) return;
  const col = <T>(f: (x: { id: number; a: AttemptRecord }) => T) => list.map(f);
  await sql`
    UPDATE webhook_deliveries d SET
      state = CASE WHEN o.state = 'pending' AND NOT coalesce((SELECT e.enabled FROM webhook_endpoints e WHERE e.id = d.endpoint_id), false) THEN 'cancelled' ELSE o.state END,
      next_attempt_at = CASE WHEN o.state = 'pending' THEN o.next_at END,
      completed_at = CASE WHEN o.state = 'pending' THEN NULL ELSE now() END,
      attempts = d.attempts + 1, last_attempt_at = o.started_at,
      last_status = o.status, last_error = o.error, last_latency_ms = o.latency_ms, last_response_excerpt = o.excerpt
    FROM unnest(
      ${col((x) => x.id)}::bigint[], ${col((x) => x.a.startedAt)}::timestamptz[], ${col((x) => x.a.state)}::text[], ${col((x) => x.a.nextAttemptAt)}::timestamptz[],
      ${col((x) => x.a.status)}::int[], ${col((x) => x.a.error)}::text[], ${col((x) => x.a.latencyMs)}::int[], ${col((x) => x.a.excerpt)}::text[]
    ) AS o(id, started_at, state, next_at, status, error, latency_ms, excerpt)
    WHERE d.id = o.id`.execute(db);
}

/** Start the endpoint's failure clock unless it runs already; returns when it started. */
export async function markEndpointFailing(db: Db, endpointId: number): Promise<Date | null> {
  const r = await sql<{ failing_since: Date }>`
    UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = ${endpointId} RETURNING failing_since`.execute(db);
  return r.rows[0]?.failing_since ?? null;
}

export async function clearEndpointFailing(db: Db, endpointId: number): Promise<void> {
  await sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${endpointId} AND failing_since IS NOT NULL`.execute(db);
}

async function cancelPending(trx: Conn, endpointId: number): Promise<void> {
  await sql`
    UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at = NULL, completed_at = now()
    WHERE endpoint_id = ${endpointId} AND state = 'pending'`.execute(trx);
}

/** Disable an active endpoint with a reason its owner sees, and cancel its pending deliveries. */
export async function disableEndpoint(db: Db, endpointId: number, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const r =
      await sql`UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, disabled_at = now(), updated_at = now() WHERE id = ${endpointId} AND enabled`.execute(
        trx,
      );
    if (Number(r.numAffectedRows ?? 0) > 0) await cancelPending(trx, endpointId);
  });
}

/** Active endpoints with a due delivery (the sweep wakes them). */
export async function dueEndpoints(db: Db, limit: number): Promise<number[]> {
  const r = await sql<{ id: number }>`
    SELECT e.id FROM webhook_endpoints e LEFT JOIN api_keys k ON k.id = e.api_key_id
    WHERE e.enabled AND k.revoked_at IS NULL
      AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= now())
    ORDER BY e.id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.id);
}

export async function hasDueDeliveries(db: Db, endpointId: number): Promise<boolean> {
  const r = await sql<{ due: boolean }>`
    SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND state = 'pending' AND next_attempt_at <= now()) AS due`.execute(db);
  return r.rows[0].due;
}

/** Delete up to `batch` deliveries created before `cutoff` (any state), oldest first, in one short statement (the primary key's order is creation order). */
export async function pruneDeliveries(db: Db, cutoff: Date, batch: number): Promise<number> {
  const r = await sql`
    DELETE FROM webhook_deliveries WHERE id IN (
      -- The oldest rows by id, of which those created before the cutoff: never scans past the batch.
      SELECT id FROM (SELECT id, created_at FROM webhook_deliveries ORDER BY id LIMIT ${batch}) s WHERE created_at < ${cutoff})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
