/**
 * The one error model: DomainError carries a registered code and no status; the middleware maps
 * the code to its status from the registry and sets the error's protocol headers; a backend outage
 * is recognised by what the error is (class, code, the client's state), never by its message.
 */
import type { Context } from 'koa';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';
import { describe, expect, it } from 'vitest';
import { errorMiddleware, httpStatusOf } from '../../src/platform/errors/index.js';
import { BackendUnavailableError, isBackendUnavailable } from '../../src/platform/errors/backend.js';
import { errorCodes, type ErrorCode } from '../../src/platform/errors/codes.js';
import { DomainError, defaultMessage } from '../../src/platform/errors/domain-error.js';
import { malformed, reject, unavailable } from '../../src/payments/errors.js';
import { createLogger } from '../../src/platform/logger.js';

const log = createLogger('test', 'silent');

/** Runs the middleware around `fail` and returns what the client would get. */
async function render(fail: () => never | Promise<never>, probe = {}) {
  const headers: Record<string, string> = {};
  const ctx = {
    state: { requestId: 'req-1' },
    method: 'GET',
    path: '/x',
    status: 404,
    body: undefined as unknown,
    type: '',
    set: (k: string, v: string) => {
      headers[k] = v;
    },
  };
  await errorMiddleware(log, probe)(ctx as unknown as Context, async () => {
    await fail();
  });
  return { status: ctx.status, body: ctx.body as { error: { code: string; message: string; details: unknown } }, headers };
}

describe('DomainError and the code -> status mapping', () => {
  it('the status comes from the registry, for every code', () => {
    for (const code of Object.keys(errorCodes) as ErrorCode[]) expect(httpStatusOf(new DomainError(code))).toBe(errorCodes[code].status);
    expect(httpStatusOf(new DomainError('article_not_found'))).toBe(404);
    expect(httpStatusOf(new DomainError('handshake_challenge_expired'))).toBe(410);
    expect(new DomainError('article_not_found')).not.toHaveProperty('status');
  });

  it('payment_invalid_encoding is 400 for a malformed PAYMENT-SIGNATURE and 402 for a malformed fallback header; unavailable payments are 503', () => {
    expect(httpStatusOf(malformed('PAYMENT-SIGNATURE is not base64'))).toBe(400);
    expect(httpStatusOf(reject('payment_invalid_encoding', 'X-Payment-Tx is not a hash', 'invalid_payload'))).toBe(402);
    expect(httpStatusOf(reject('payment_replayed', 'used'))).toBe(402);
    expect(httpStatusOf(unavailable('payments_not_configured', 'off'))).toBe(503);
  });

  it('a code without a message gets the registry meaning, without its status prefix or suffix', () => {
    expect(new DomainError('nonce_used').message).toBe('The nonce was already used to sign in: request a new one.');
    expect(defaultMessage('api_key_revoked')).toBe('the API key was revoked.');
    expect(defaultMessage('username_reserved')).toBe('The username is reserved.');
  });

  it('the middleware renders the body, the status from the registry and the protocol headers the error carries', async () => {
    const r = await render(() => {
      throw new DomainError('rate_limited', 'slow down', { retry_after_seconds: 7 }, { headers: { 'Retry-After': '7' } });
    });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ error: { code: 'rate_limited', message: 'slow down', details: { retry_after_seconds: 7 } } });
    expect(r.headers['Retry-After']).toBe('7');
    const p = await render(() => {
      throw malformed('PAYMENT-SIGNATURE is not base64', { header: 'PAYMENT-SIGNATURE' });
    });
    expect(p.status).toBe(400);
    expect(p.body.error.code).toBe('payment_invalid_encoding');
  });

  it("malformed JSON is recognised by co-body's SyntaxError with status 400, not by its text", async () => {
    const r = await render(() => {
      throw Object.assign(new SyntaxError('Unexpected token } in whatever wording'), { status: 400, body: '{' });
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('malformed_json');
  });
});

describe('backend outages by class, code and client state', () => {
  it('Node and PostgreSQL codes, the translated pg failure and ioredis MaxRetriesPerRequestError are outages', () => {
    expect(isBackendUnavailable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isBackendUnavailable(Object.assign(new Error('x'), { code: '57P01', severity: 'FATAL' }))).toBe(true);
    expect(isBackendUnavailable(new BackendUnavailableError('postgres', new Error('Connection terminated unexpectedly')))).toBe(true);
    expect(isBackendUnavailable(new MaxRetriesPerRequestError(1))).toBe(true);
    expect(isBackendUnavailable(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })]))).toBe(true);
    expect(isBackendUnavailable(new Error('wrapped', { cause: Object.assign(new Error('b'), { code: 'ECONNRESET' }) }))).toBe(true);
  });

  it('the message text decides nothing: a plain Error is an outage only while the Redis client is not ready', () => {
    const closed = new Error('Connection is closed.');
    expect(isBackendUnavailable(closed)).toBe(false);
    expect(isBackendUnavailable(closed, { redisDown: () => false })).toBe(false);
    expect(isBackendUnavailable(closed, { redisDown: () => true })).toBe(true);
    expect(isBackendUnavailable(new Error('anything at all'), { redisDown: () => true })).toBe(true);
    // A bug (TypeError) stays a bug even during an outage.
    expect(isBackendUnavailable(new TypeError('x is undefined'), { redisDown: () => true })).toBe(false);
  });

  it('the middleware answers an outage 503 service_unavailable with Retry-After, and anything else 500 internal_error', async () => {
    const down = await render(
      () => {
        throw new Error('Connection is closed.');
      },
      { redisDown: () => true },
    );
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('service_unavailable');
    expect(down.headers['Retry-After']).toBe('5');
    const bug = await render(
      () => {
        throw new Error('Connection is closed.');
      },
      { redisDown: () => false },
    );
    expect(bug.status).toBe(500);
    expect(bug.body).toEqual({ error: { code: 'internal_error', message: 'internal error', details: { request_id: 'req-1' } } });
  });
});
