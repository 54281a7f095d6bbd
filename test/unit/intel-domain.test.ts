import { describe, expect, it } from 'vitest';
import { median, parseTopics, postingSignal, reportParamsId, velocity, windowOf } from '../../src/intel/rules/report.js';
import { classifySettle } from '../../jobs/settle-payment.js';
import { FacilitatorTimeoutError } from '@x402/core/http';
import { SettleError } from '@x402/core/types';
import { previousSettleError, transientNote } from '../../src/payments/settle.js';

describe('velocity (acceleration of a tag)', () => {
  it('is 0 when both halves of the window have the same number of articles', () => {
    expect(velocity(5, 5)).toBe(0);
  });
  it('is 1 when the recent half doubled, -1 when it stopped, and r for a tag new in the window', () => {
    expect(velocity(10, 5)).toBe(1);
    expect(velocity(0, 4)).toBe(-1);
    expect(velocity(3, 0)).toBe(3);
    expect(velocity(0, 0)).toBe(0);
  });
});

describe('posting_signal', () => {
  it('is 0.5 ("no information") without history or when every hour did equally well', () => {
    expect(postingSignal([], 12).value).toBe(0.5);
    const flat = Array.from({ length: 24 }, (_, hour) => ({ hour, articles: 10, clicks: 100 }));
    expect(postingSignal(flat, 3).value).toBe(0.5);
  });

  it('is 1 at the best hour and 0 at the worst, and lists all 24 hours', () => {
    const buckets = Array.from({ length: 24 }, (_, hour) => ({ hour, articles: 20, clicks: 20 * (hour === 14 ? 50 : hour === 3 ? 1 : 10) }));
    const best = postingSignal(buckets, 14);
    expect(best.value).toBe(1);
    expect(postingSignal(buckets, 3).value).toBe(0);
    const mid = postingSignal(buckets, 9).value;
    expect(mid).toBeGreaterThan(0);
    expect(mid).toBeLessThan(1);
    expect(best.hourly).toHaveLength(24);
    expect(best.hourly[14]).toMatchObject({ hour: 14, articles: 20, avg_clicks: 50 });
    expect(best.articles).toBe(480);
  });

  it('does not let an hour with a couple of lucky articles beat a consistently good hour', () => {
    const buckets = [...Array.from({ length: 24 }, (_, hour) => ({ hour, articles: 30, clicks: 30 * 10 }))];
    buckets[2] = { hour: 2, articles: 2, clicks: 2 * 60 }; // two lucky articles, mean 60
    buckets[18] = { hour: 18, articles: 60, clicks: 60 * 40 }; // many articles, mean 40
    expect(postingSignal(buckets, 18).value).toBe(1);
    expect(postingSignal(buckets, 2).value).toBeLessThan(1);
  });

  it('stays within 0..1', () => {
    for (let i = 0; i < 50; i++) {
      const buckets = Array.from({ length: 24 }, (_, hour) => ({ hour, articles: Math.floor(Math.random() * 5), clicks: Math.floor(Math.random() * 500) }));
      const v = postingSignal(buckets, i % 24).value;
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
  });
});

describe('topics parameter', () => {
  it('lower-cases, trims, de-duplicates and sorts tag slugs', () => {
    expect(parseTopics(' DeFi, layer-2 ,defi,,')).toEqual({ topics: ['defi', 'layer-2'] });
    expect(parseTopics(undefined)).toEqual({ topics: [] });
    expect(parseTopics('')).toEqual({ topics: [] });
  });
  it('rejects what is not a slug and more than 20 topics', () => {
    expect(parseTopics('ok,not a slug')).toHaveProperty('error');
    expect(parseTopics('a--b')).toHaveProperty('error');
    expect(parseTopics('x'.repeat(33))).toHaveProperty('error');
    expect(parseTopics(Array.from({ length: 21 }, (_, i) => `t${i}`).join(','))).toHaveProperty('error');
  });
  it('gives equal parameter sets the same cache identity', () => {
    const a = parseTopics('b,a') as { topics: string[] };
    const b = parseTopics('a,b,a') as { topics: string[] };
    expect(reportParamsId({ hours: 24, top_n: 10, topics: a.topics })).toBe(reportParamsId({ hours: 24, top_n: 10, topics: b.topics }));
  });
});

describe('window and median', () => {
  it('splits the window at its midpoint', () => {
    const w = windowOf(new Date('2026-01-02T00:00:00Z'), 24);
    expect(w.from.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(w.mid.toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });
  it('median of odd and even lists', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});

describe('settlement outcome classification', () => {
  const ok = { success: true, transaction: '0xabc', network: 'eip155:84532' as const };
  it('a successful answer is settled', () => {
    expect(classifySettle(ok, null, null)).toEqual({ kind: 'settled', transaction: '0xabc' });
  });
  it('a 4xx refusal is final, a 5xx or a network error is retried', () => {
    const refused = new SettleError(400, { success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '', network: 'eip155:84532' });
    expect(classifySettle(null, refused, null)).toEqual({ kind: 'refused', reason: 'invalid_exact_evm_insufficient_balance' });
    const down = new SettleError(502, { success: false, transaction: '', network: 'eip155:84532' });
    expect(classifySettle(null, down, null).kind).toBe('transient');
    expect(classifySettle(null, new Error('fetch failed'), null).kind).toBe('transient');
  });
  it('after a timed-out attempt, "nonce already used" means our transfer went through', () => {
    const t = classifySettle(null, new FacilitatorTimeoutError('settle', 10), null);
    expect(t).toMatchObject({ kind: 'transient', indeterminate: true });
    const used = new SettleError(400, { success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '', network: 'eip155:84532' });
    expect(classifySettle(null, used, 'indeterminate:facilitator timeout')).toEqual({ kind: 'settled', transaction: null });
    expect(classifySettle(null, used, null)).toMatchObject({ kind: 'refused' });
  });
  it('a later transient error keeps the indeterminate mark, so "nonce already used" after it still reads as settled', () => {
    const down = classifySettle(null, new SettleError(502, { success: false, transaction: '', network: 'eip155:84532' }), null);
    if (down.kind !== 'transient') throw new Error('expected transient');
    const note = transientNote(down, 'indeterminate:facilitator timeout');
    expect(note).toBe('indeterminate:facilitator 502: error');
    expect(transientNote(down, null)).toBe('facilitator 502: error');
    const used = new SettleError(400, { success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '', network: 'eip155:84532' });
    expect(classifySettle(null, used, note)).toEqual({ kind: 'settled', transaction: null });
    expect(previousSettleError({ last_error: null, settle_attempts: 2 })).toMatch(/^indeterminate:/);
    expect(previousSettleError({ last_error: null, settle_attempts: 1 })).toBeNull();
  });
});
