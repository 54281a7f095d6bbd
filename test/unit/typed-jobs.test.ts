/**
 * Enqueueing is type-checked against each job's payload schema, and a job's id comes only from its
 * own scheme (options.jobId), never from the caller. The `@ts-expect-error` lines are checked by
 * `npm run typecheck` (run by .ci/run before the tests): if a wrong call compiled, tsc would fail on
 * the unused directive. The runtime half checks the same calls are refused when types are bypassed.
 */
import { describe, expect, it } from 'vitest';
import type { Enqueue } from '../../jobs/define.js';
import { jobs } from '../../jobs/index.js';
import { jobOptionsFor } from '../../src/platform/queue.js';

describe('typed jobs', () => {
  it('wrong payloads and caller-chosen job ids do not compile', () => {
    const calls: string[] = [];
    const enqueue: Enqueue = async (name) => {
      calls.push(name);
      return 'id';
    };
    void enqueue('page-title', { article_id: 1 });
    // @ts-expect-error: unknown field
    void enqueue('page-title', { article_id: 1, articleId: 2 });
    // @ts-expect-error: wrong type
    void enqueue('page-title', { article_id: '1' });
    // @ts-expect-error: unknown job
    void enqueue('page-titles', { article_id: 1 });
    // @ts-expect-error: the id is the job's own scheme, not an option
    void enqueue('publish-scheduled', { article_id: 1 }, { jobId: 'mine' });
    expect(calls).toHaveLength(5);
  });

  it('a payload the schema refuses fails at enqueue time as well', () => {
    expect(() => jobs['page-title'].payload.parse({ article_id: '1' })).toThrow();
  });

  it('each job has one id scheme, derived from its payload', () => {
    const id = (name: keyof typeof jobs, p: unknown) => jobOptionsFor(jobs, name, jobs[name].payload.parse(p)).jobId;
    expect(id('publish-scheduled', { article_id: 5, publish_at: 1000 })).toBe('publish-scheduled-5-1000');
    expect(id('publish-scheduled', { article_id: 5 })).toBe(id('publish-scheduled', { article_id: 5 }));
    expect(id('page-title', { article_id: 5 })).toBe('page-title-5');
    expect(id('page-title', { article_id: 5, sweep: 2 })).toBe('page-title-5-sweep-2');
    expect(id('settle-payment', { payment_id: 'pay_' + 'a'.repeat(22) })).toBe('settle-pay_' + 'a'.repeat(22));
    expect(id('settle-payment', {})).toBeUndefined();
    // Provenance checks: a random id each time (it is the poll URL's token).
    expect(id('provenance-check', { url: 'https://example.com/a' })).not.toBe(id('provenance-check', { url: 'https://example.com/a' }));
    expect(id('provenance-check', { url: 'https://example.com/a' })).toMatch(/^[0-9a-f-]{36}$/);
  });
});
