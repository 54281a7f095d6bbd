/**
 * The request and answer shapes of the webhook endpoints API (zod: validation, types and the
 * OpenAPI document), and the mapping of stored rows to the API's field names.
 */
import net from 'node:net';
import { z } from 'zod';
import { MAX_YAP_TAG_LENGTH, YAP_TAG_PATTERN, idParam, tokenAddress } from '../articles/index.js';
import { ASSET_FILTER_PATTERN } from '../platform/events/filter.js';
import { publicEventTypes } from '../platform/events/events.js';
import { isoTimeOrNull } from '../platform/iso-time.js';
import { isoTimestamp, text } from '../platform/http/schemas.js';
import { isPrivateAddress } from '../platform/safe-fetch.js';
import type { DeliveryRow, EndpointRow } from './queries.js';
import { EXCERPT_BYTES, messageId } from './deliver.js';

const MAX_FILTER_VALUES = 50;
const dedupe = <T>(a: T[]) => [...new Set(a)];

const tagValue = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.string().min(1).max(MAX_YAP_TAG_LENGTH).regex(YAP_TAG_PATTERN, 'must be a slug: lower-case letters, digits and single hyphens'));
const assetValue = z.string().trim().max(100).regex(ASSET_FILTER_PATTERN, 'must be an asset id: a lower-case slug (GET /api/v1/assets/?q= finds it)');
const symbolValue = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9$._-]{1,20}$/, 'must be 1 to 20 of A-Z a-z 0-9 $ . _ -')
  .transform((v) => v.toUpperCase());
const filterList = <T extends z.ZodType<string, any>>(item: T, what: string) =>
  z
    .array(item)
    .min(1, `give at least one ${what}, or leave the key out (no filter on ${what}s)`)
    .max(MAX_FILTER_VALUES, `at most ${MAX_FILTER_VALUES} values`)
    .transform((v) => dedupe(v as string[]))
    .optional();

export const filtersInput = z
  .strictObject({
    tags: filterList(tagValue, 'tag'),
    token_addresses: filterList(tokenAddress, 'token address'),
    token_symbols: filterList(symbolValue, 'token symbol'),
    assets: filterList(assetValue, 'asset id'),
  })
  .meta({
    description:
      "An event matches when its article has at least one of the listed values of EACH kind given (tags AND token_addresses AND token_symbols AND assets, each an OR list; assets are canonical asset ids, matched against the article's asset tags when the event was recorded, and an id the registry does not know is 400 unknown_asset). No key (or {}) = no filter: every event of the chosen types. Events without an article (news.tsunami, a wire item) only reach endpoints without filters. Tags and addresses compare lower-case, symbols case-insensitively; token_symbols and token_addresses also match the symbols and contract addresses of the article's asset tags when the event was recorded.",
  });

export const eventTypesInput = z
  .array(z.enum(publicEventTypes))
  .min(1, 'give at least one event type, or leave the key out (all public types)')
  .transform(dedupe)
  .meta({ description: `Public event types to receive: ${publicEventTypes.join(', ')} (default all)` });

export const descriptionInput = text().trim().max(500, 'must be at most 500 characters');

export function endpointUrl(allowPrivate: boolean) {
  return z
    .string()
    .trim()
    .min(1, 'is required')
    .max(2048, 'must be at most 2048 characters')
    .superRefine((v, c) => {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        c.addIssue({ code: 'custom', message: 'must be an absolute URL' });
        return;
      }
      const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
      if (!schemes.includes(u.protocol)) c.addIssue({ code: 'custom', message: allowPrivate ? 'must be an http:// or https:// URL' : 'must be an https:// URL' });
      if (u.username || u.password) c.addIssue({ code: 'custom', message: 'must not carry credentials' });
      if (u.hash) c.addIssue({ code: 'custom', message: 'must not have a #fragment' });
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (!allowPrivate && ((net.isIP(host) !== 0 && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))) {
        c.addIssue({ code: 'custom', message: 'must not point to a private, loopback or link-local address' });
      }
    })
    .meta({
      description:
        'Where deliveries are POSTed: https:// (http:// only where OUTBOUND_ALLOW_PRIVATE is set); private, loopback and link-local addresses are refused (also after DNS, at every attempt)',
    });
}

const filtersOut = z
  .object({
    tags: z.array(z.string()).nullable(),
    token_addresses: z.array(z.string()).nullable(),
    token_symbols: z.array(z.string()).nullable(),
    assets: z.array(z.string()).optional().meta({ description: 'Asset ids; present only when the endpoint filters on assets' }),
  })
  .meta({ id: 'WebhookFilters', description: 'null = that kind does not filter' });

export const endpointSchema = z
  .object({
    id: z.number().int(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    filters: filtersOut,
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ description: 'Why it is disabled: by its owner, a 410 Gone, or failing longer than the retry horizon' }),
    disabled_at: isoTimestamp('When it was disabled').nullable(),
    failing_since: isoTimestamp('Start of the current run of failed attempts (null while deliveries succeed); past the retry horizon the endpoint is disabled').nullable(),
    secret_rotated_at: isoTimestamp('Last secret rotation').nullable(),
    previous_secret_expires_at: isoTimestamp('During a rotation: until then deliveries also carry a signature with the previous secret').nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdSchema = endpointSchema
  .extend({ secret: z.string().meta({ description: 'The signing secret, `whsec_` + base64 (Standard Webhooks). Shown only in this answer: store it now.' }) })
  .meta({ id: 'WebhookEndpointCreated' });

export const deliverySchema = z
  .object({
    id: z.number().int(),
    webhook_id: z.string().meta({ description: 'The webhook-id header of every attempt of this delivery: msg_<id>' }),
    event_id: z.number().int().nullable().meta({ description: 'The event log id (data.event_id); null for webhook.test' }),
    event_type: z.string(),
    state: z
      .enum(['pending', 'succeeded', 'failed', 'cancelled'])
      .meta({ description: 'pending (next_attempt_at), succeeded (2xx), failed (410 or retries used up), cancelled (the endpoint was disabled)' }),
    attempts: z.number().int(),
    last_status: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt; null when it got no response' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Error class of the last attempt: timeout, connection_error, dns_failed, blocked_address, invalid_url, redirect_not_followed, event_expired' }),
    last_latency_ms: z.number().int().nullable(),
    last_response_excerpt: z
      .string()
      .nullable()
      .meta({ description: `At most the first ${EXCERPT_BYTES} bytes of the last response body` }),
    last_attempt_at: isoTimestamp('Start of the last attempt').nullable(),
    next_attempt_at: isoTimestamp('While pending: when the next attempt is due').nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
    completed_at: isoTimestamp('When it reached its final state').nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export function toEndpoint(r: EndpointRow) {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    event_types: r.event_types,
    filters: {
      tags: r.filter_tags,
      token_addresses: r.filter_token_addresses,
      token_symbols: r.filter_token_symbols,
      ...(r.filter_assets ? { assets: r.filter_assets } : {}),
    },
    enabled: r.enabled,
    disabled_reason: r.disabled_reason,
    disabled_at: isoTimeOrNull(r.disabled_at),
    failing_since: isoTimeOrNull(r.failing_since),
    secret_rotated_at: isoTimeOrNull(r.secret_rotated_at),
    previous_secret_expires_at: r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > Date.now() ? r.previous_secret_expires_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export function toDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    webhook_id: messageId(d.id),
    event_id: d.event_id,
    event_type: d.event_type,
    state: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    last_latency_ms: d.last_latency_ms,
    last_response_excerpt: d.last_response_excerpt,
    last_attempt_at: isoTimeOrNull(d.last_attempt_at),
    next_attempt_at: d.state === 'pending' ? isoTimeOrNull(d.next_attempt_at) : null,
    created_at: d.created_at.toISOString(),
    completed_at: isoTimeOrNull(d.completed_at),
  };
}

export const deliveryIdParam = z.object({
  id: idParam.shape.id,
  delivery_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int()),
});
