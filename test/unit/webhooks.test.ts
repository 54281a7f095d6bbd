/**
 * Pure parts of webhooks: endpoint matching (the index agrees with the rule on random endpoints and
 * events), the retry schedule, caps, secret encryption and the signature header (checked with the
 * Standard Webhooks reference verifier).
 */
import fc from '../support/property.js';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { endpointCap } from '../../src/webhooks/rules/caps.js';
import { EndpointIndex, endpointMatches, type MatchableEndpoint } from '../../src/webhooks/rules/match.js';
import { MAX_ATTEMPTS, nextRetryDelayMs, parseRetryAfter, retryHorizonMs, verdictOf } from '../../src/webhooks/rules/retry.js';
import { decryptSecret, DEV_WEBHOOK_KEY, encryptSecret, generateSecret, signatureHeader, webhookKey } from '../../src/webhooks/secrets.js';
import { deliveryBody } from '../../src/webhooks/deliver.js';

const ep = (id: number, filters: MatchableEndpoint['filters'] = {}, eventTypes = ['news.approved']): MatchableEndpoint => ({ id, eventTypes, filters });

describe('matching', () => {
  it('at least one value of each listed kind; no filters = everything of its types', () => {
    const attrs = { tags: ['defi', 'l2'], token_addresses: ['0xabc'], token_symbols: ['eth'] };
    expect(endpointMatches(ep(1), 'news.approved', attrs)).toBe(true);
    expect(endpointMatches(ep(1), 'news.sponsored', attrs)).toBe(false);
    expect(endpointMatches(ep(1, { token_symbols: ['ETH', 'BTC'] }), 'news.approved', attrs)).toBe(true);
    expect(endpointMatches(ep(1, { token_symbols: ['ETH'], tags: ['nft'] }), 'news.approved', attrs)).toBe(false);
    expect(endpointMatches(ep(1, { token_symbols: ['ETH'], tags: ['NFT', 'DeFi'] }), 'news.approved', attrs)).toBe(true);
    expect(endpointMatches(ep(1, { token_addresses: ['0xABC'] }), 'news.approved', attrs)).toBe(true);
    expect(endpointMatches(ep(1, { tags: null, token_symbols: ['ETH'] }), 'news.approved', attrs)).toBe(true);
    // No article attributes (a wire item): only endpoints without filters.
    expect(endpointMatches(ep(1), 'news.approved', null)).toBe(true);
    expect(endpointMatches(ep(1, { tags: ['defi'] }), 'news.approved', null)).toBe(false);
    expect(endpointMatches(ep(1, { tags: ['defi'] }), 'news.approved', { tags: [] })).toBe(false);
  });

  it('the index finds exactly the endpoints the rule matches (random endpoints and events)', () => {
    const values = { tags: ['defi', 'nft', 'l2', 'memes'], token_addresses: ['0xa', '0xb', '0xc'], token_symbols: ['ETH', 'btc', 'Sol', 'ARB'] };
    const types = ['news.approved', 'news.sponsored', 'news.tsunami'];
    const list = (vs: string[]) => fc.option(fc.uniqueArray(fc.constantFrom(...vs), { minLength: 1, maxLength: 3 }), { nil: null });
    const endpoint = fc.record({
      eventTypes: fc.uniqueArray(fc.constantFrom(...types), { minLength: 1, maxLength: 3 }),
      filters: fc.record({ tags: list(values.tags), token_addresses: list(values.token_addresses), token_symbols: list(values.token_symbols) }),
    });
    const anyCase = (vs: string[]) => fc.uniqueArray(fc.constantFrom(...vs, ...vs.map((v) => v.toUpperCase()), ...vs.map((v) => v.toLowerCase())), { maxLength: 3 });
    const event = fc.record({
      type: fc.constantFrom(...types),
      attrs: fc.option(fc.record({ tags: anyCase(values.tags), token_addresses: anyCase(values.token_addresses), token_symbols: anyCase(values.token_symbols) }), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(endpoint, { maxLength: 40 }), fc.array(event, { minLength: 1, maxLength: 10 }), (eps, evs) => {
        const endpoints = eps.map((e, i) => ({ id: i + 1, ...e }));
        const index = new EndpointIndex(endpoints);
        for (const ev of evs) {
          const expected = endpoints.filter((e) => endpointMatches(e, ev.type, ev.attrs)).map((e) => e.id);
          expect(index.match(ev.type, ev.attrs)).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('retry schedule', () => {
  it('x4 from the base up to 8 h, 10 attempts over ~23.6 h at 5 s, jitter +-20%', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => nextRetryDelayMs(i + 1, 5000, 0.5));
    expect(delays).toEqual([5, 20, 80, 320, 1280, 5120, 20480, 28800, 28800].map((s) => s * 1000));
    expect(nextRetryDelayMs(MAX_ATTEMPTS, 5000, 0.5)).toBeNull();
    expect(retryHorizonMs(5000) / 3600_000).toBeCloseTo(23.58, 1);
    expect(nextRetryDelayMs(1, 5000, 0)).toBe(4000);
    expect(nextRetryDelayMs(1, 5000, 0.999999)).toBe(6000);
  });

  it('Retry-After pushes a retry out (at most an hour); 2xx succeeds, 410 is gone, the rest retries', () => {
    expect(nextRetryDelayMs(1, 5000, 0.5, 120_000)).toBe(120_000);
    expect(nextRetryDelayMs(1, 5000, 0.5, 86_400_000)).toBe(3600_000);
    expect(nextRetryDelayMs(6, 5000, 0.5, 1000)).toBe(5120_000);
    expect(parseRetryAfter('30', 0)).toBe(30_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
    expect([200, 204, 299].map(verdictOf)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect([410].map(verdictOf)).toEqual(['gone']);
    expect([null, 301, 302, 400, 404, 429, 500, 503].map(verdictOf).every((v) => v === 'retry')).toBe(true);
  });
});

describe('caps', () => {
  it('account 10 or its best key tier; unlinked keys by tier', () => {
    expect(endpointCap({ kind: 'account', keyTiers: [] })).toBe(10);
    expect(endpointCap({ kind: 'account', keyTiers: ['free'] })).toBe(10);
    expect(endpointCap({ kind: 'account', keyTiers: ['free', 'builder'] })).toBe(50);
    expect(endpointCap({ kind: 'api_key', tier: 'free' })).toBe(5);
    expect(endpointCap({ kind: 'api_key', tier: 'enterprise' })).toBe(1000);
  });
});

describe('secrets and signatures', () => {
  it('whsec_ secrets round-trip through AES-256-GCM; another key or a flipped byte fails', () => {
    const s = generateSecret();
    const key = Buffer.alloc(32, 7);
    const enc = encryptSecret(key, s);
    expect(enc).not.toContain(s.slice(6));
    expect(decryptSecret(key, enc)).toBe(s);
    expect(encryptSecret(key, s)).not.toBe(enc);
    expect(() => decryptSecret(DEV_WEBHOOK_KEY, enc)).toThrow();
    const raw = Buffer.from(enc.slice(3), 'base64');
    raw[20] ^= 1;
    expect(() => decryptSecret(key, `v1:${raw.toString('base64')}`)).toThrow();
  });

  it('the key: WEBHOOK_SECRET_KEY, else the development key, else (production) none', () => {
    const k = Buffer.alloc(32, 9).toString('base64');
    expect(webhookKey({ WEBHOOK_SECRET_KEY: k, NODE_ENV: 'production' })).toEqual(Buffer.alloc(32, 9));
    expect(webhookKey({ NODE_ENV: 'development' })).toBe(DEV_WEBHOOK_KEY);
    expect(webhookKey({ NODE_ENV: 'production' })).toBeNull();
  });

  it('the reference verifier accepts our signature header, with one secret or two (rotation)', () => {
    const [a, b] = [generateSecret(), generateSecret()];
    const body = deliveryBody('news.approved', new Date('2026-01-02T03:04:05.678Z'), '{"id":1,"event_id":7}');
    expect(JSON.parse(body)).toEqual({ type: 'news.approved', timestamp: '2026-01-02T03:04:05.678Z', data: { id: 1, event_id: 7 } });
    const ts = Math.floor(Date.now() / 1000);
    const one = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader([a], 'msg_1', ts, body) };
    expect(new Webhook(a).verify(body, one)).toEqual(JSON.parse(body));
    expect(() => new Webhook(b).verify(body, one)).toThrow();
    const both = { ...one, 'webhook-signature': signatureHeader([b, a], 'msg_1', ts, body) };
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, both)).toBeTruthy();
    expect(new Webhook(b).verify(body, both)).toBeTruthy();
    // Our signature equals the reference implementation's own.
    expect(signatureHeader([a], 'msg_1', ts, body)).toBe(new Webhook(a).sign('msg_1', new Date(ts * 1000), body));
  });
});
