/**
 * The webhook endpoints use cases, for an owner: the account when the caller has one (a session, or
 * an API key linked to an account), else the API key itself. Anyone else's endpoint is
 * webhook_not_found, exactly like one that does not exist. The signing secret leaves this module
 * only in the answers to create and rotate. Deliveries themselves are made by the worker
 * (src/webhooks/deliver.ts); test deliveries and redeliveries wake the endpoint's run.
 */
import { requireKnownAssets } from '../assets/index.js';
import type { Tier } from '../identity/index.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { publicEventTypes } from '../platform/events/events.js';
import { isoTimeOrNull } from '../platform/iso-time.js';
import type { Db } from '../platform/db.js';
import { endpointCap } from './rules/caps.js';
import {
  accountKeyTiers,
  deleteEndpoint,
  getEndpoint,
  insertEndpoint,
  insertTestDelivery,
  listDeliveries,
  listEndpoints,
  rearmDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
  type Owner,
} from './queries.js';
import { wakeEndpoint } from './deliver.js';
import { encryptSecret, generateSecret, webhookKey } from './secrets.js';

/** Deliveries are signed with the previous secret too for this long after a rotation. */
const ROTATION_GRACE_MS = 24 * 3600_000;

type ServiceDeps = Pick<AppDeps, 'config' | 'db' | 'log' | 'queue'>;

/** Who asks: the owner of the endpoints, and the tier of the API key when the owner is that key. */
interface WebhookCaller {
  owner: Owner;
  apiKeyTier?: Tier;
}

interface Filters {
  tags?: string[];
  token_addresses?: string[];
  token_symbols?: string[];
  assets?: string[];
}

interface EndpointFields {
  url: string;
  description?: string;
  eventTypes?: string[];
  filters?: Filters;
}

interface EndpointChanges {
  url?: string;
  /** null or '' clears it. */
  description?: string | null;
  eventTypes?: string[];
  /** null or {} removes every filter. */
  filters?: Filters | null;
  enabled?: boolean;
}

export const webhooksNotConfigured = () => new DomainError('webhooks_not_configured', 'webhooks are not configured on this deployment (WEBHOOK_SECRET_KEY is unset)');

const notFound = (id: number) => new DomainError('webhook_not_found', `no webhook endpoint ${id}`);

/** A kind of filter that is not given does not filter (null). */
const storedFilters = (f: Filters | null | undefined) => ({
  tags: f?.tags ?? null,
  token_addresses: f?.token_addresses ?? null,
  token_symbols: f?.token_symbols ?? null,
  assets: f?.assets ?? null,
});

function secretKey(config: ServiceDeps['config']): Buffer {
  const key = webhookKey(config);
  if (!key) throw webhooksNotConfigured();
  return key;
}

/** Queue a run of the endpoint; a lost wake-up is not an error (the sweep wakes due deliveries). */
async function wake(deps: ServiceDeps, endpointId: number): Promise<void> {
  await wakeEndpoint((name, payload, opts) => deps.queue.enqueue(name, payload, opts), endpointId).catch((err: unknown) =>
    deps.log.warn({ endpointId, err: (err as Error).message }, 'webhook run not woken (the sweep will)'),
  );
}

/** Create an endpoint within the owner's cap; returns it with its signing secret (shown this once). */
export async function createWebhookEndpoint(deps: ServiceDeps, caller: WebhookCaller, fields: EndpointFields): Promise<{ row: EndpointRow; secret: string }> {
  const { owner } = caller;
  const key = secretKey(deps.config);
  await requireKnownAssets(deps.db, fields.filters?.assets);
  const cap =
    owner.kind === 'user' ? endpointCap({ kind: 'account', keyTiers: await accountKeyTiers(deps.db, owner.userId) }) : endpointCap({ kind: 'api_key', tier: caller.apiKeyTier! });
  const secret = generateSecret();
  const r = await insertEndpoint(
    deps.db,
    owner,
    {
      url: fields.url,
      description: fields.description || null,
      eventTypes: fields.eventTypes ?? [...publicEventTypes],
      filters: storedFilters(fields.filters),
      secretEnc: encryptSecret(key, secret),
    },
    cap,
  );
  if (!r.ok)
    throw new DomainError('webhook_limit_reached', `at most ${cap} webhook endpoints for this ${owner.kind === 'user' ? 'account' : 'API key'}; delete one first`, {
      limit: cap,
      count: r.count,
    });
  return { row: r.row, secret };
}

export function listOwnEndpoints(db: Db, owner: Owner, page: number, perPage: number): Promise<{ rows: EndpointRow[]; total: number }> {
  return listEndpoints(db, owner, page, perPage);
}

/** The owner's endpoint, or webhook_not_found. */
export async function ownEndpoint(db: Db, owner: Owner, id: number): Promise<EndpointRow> {
  const row = await getEndpoint(db, owner, id);
  if (!row) throw notFound(id);
  return row;
}

/** Apply a change; disabling cancels the pending deliveries, re-enabling clears the reason and the failure clock. */
export async function updateWebhookEndpoint(db: Db, owner: Owner, id: number, c: EndpointChanges): Promise<EndpointRow> {
  await requireKnownAssets(db, c.filters?.assets);
  const row = await updateEndpoint(db, owner, id, {
    url: c.url,
    description: c.description === undefined ? undefined : c.description || null,
    eventTypes: c.eventTypes,
    filters: c.filters === undefined ? undefined : storedFilters(c.filters),
    enabled: c.enabled,
  });
  if (!row) throw notFound(id);
  return row;
}

export async function deleteWebhookEndpoint(db: Db, owner: Owner, id: number): Promise<void> {
  if (!(await deleteEndpoint(db, owner, id))) throw notFound(id);
}

/** A new signing secret (returned this once); the previous one keeps signing for ROTATION_GRACE_MS. */
export async function rotateWebhookSecret(deps: ServiceDeps, owner: Owner, id: number): Promise<{ row: EndpointRow; secret: string }> {
  const secret = generateSecret();
  const row = await rotateEndpointSecret(deps.db, owner, id, encryptSecret(secretKey(deps.config), secret), ROTATION_GRACE_MS);
  if (!row) throw notFound(id);
  return { row, secret };
}

function assertEnabled(ep: EndpointRow): void {
  if (!ep.enabled)
    throw new DomainError('webhook_disabled', `webhook endpoint ${ep.id} is disabled (${ep.disabled_reason ?? 'disabled'}); re-enable it with PATCH {"enabled": true}`);
}

/** Queue a webhook.test delivery to an enabled endpoint, due now, and wake its run. */
export async function sendTestDelivery(deps: ServiceDeps, owner: Owner, id: number): Promise<DeliveryRow> {
  const ep = await ownEndpoint(deps.db, owner, id);
  assertEnabled(ep);
  const d = await insertTestDelivery(
    deps.db,
    ep.id,
    JSON.stringify({ webhook_endpoint_id: ep.id, message: 'Test delivery from Squid News: your endpoint receives and verifies webhooks.' }),
  );
  await wake(deps, ep.id);
  return d;
}

/** A page of the endpoint's deliveries, newest first, below the delivery id `before`. */
export async function listEndpointDeliveries(
  db: Db,
  owner: Owner,
  id: number,
  q: { before?: number; limit: number; state?: DeliveryRow['state'] },
): Promise<{ rows: DeliveryRow[]; hasMore: boolean }> {
  await ownEndpoint(db, owner, id);
  const rows = await listDeliveries(db, id, { before: q.before, limit: q.limit + 1, state: q.state });
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** Start a finished delivery over (same webhook-id), due now, on the same retry schedule, and wake the endpoint's run. */
export async function redeliver(deps: ServiceDeps, owner: Owner, id: number, deliveryId: number): Promise<DeliveryRow> {
  const ep = await ownEndpoint(deps.db, owner, id);
  assertEnabled(ep);
  const r = await rearmDelivery(deps.db, ep.id, deliveryId);
  if (!r.ok && r.reason === 'not_found') throw new DomainError('webhook_delivery_not_found', `no delivery ${deliveryId} on webhook endpoint ${ep.id}`);
  if (!r.ok && r.reason === 'pending') {
    throw new DomainError('webhook_delivery_pending', `delivery ${deliveryId} is still pending; its next attempt is at ${isoTimeOrNull(r.row!.next_attempt_at)}`, {
      next_attempt_at: isoTimeOrNull(r.row!.next_attempt_at),
    });
  }
  if (!r.ok) throw new DomainError('webhook_event_expired', `the event of delivery ${deliveryId} was deleted by retention; it cannot be sent again`);
  await wake(deps, ep.id);
  return r.row;
}
