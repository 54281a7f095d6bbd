/**
 * The request log line: a coded 5xx the service answers on purpose (an unconfigured feature, a busy
 * picture pool, a backend outage) is warn, once per code per interval; an uncoded 5xx (a 500) is
 * error every time.
 */
import { Writable } from 'node:stream';
import type { Context } from 'koa';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../../src/platform/http/request-log.js';

function captured(level: string) {
  const lines: { level: number; msg: string; status?: number; code?: string; suppressed?: number }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}

const WARN = 40;
const ERROR = 50;
const INFO = 30;

const answer = (status: number, code?: string) =>
  ({ status, method: 'GET', path: '/api/v1/x', body: code ? { error: { code, message: 'm', details: null } } : undefined }) as unknown as Context;

describe('request log', () => {
  it('a coded 503 is warn once per code per interval, with the count it stood for; a 500 is error every time', () => {
    let now = 0;
    const { log, lines } = captured('warn');
    const logRequest = requestLogger(log, { intervalMs: 60_000, now: () => now });
    for (let i = 0; i < 5; i++) logRequest(answer(503, 'webhooks_not_configured'), `r${i}`, performance.now());
    logRequest(answer(503, 'profile_picture_busy'), 'p', performance.now());
    logRequest(answer(500, 'internal_error'), 'e1', performance.now());
    logRequest(answer(500, 'internal_error'), 'e2', performance.now());
    expect(lines.map((l) => [l.level, l.status, l.code])).toEqual([
      [WARN, 503, 'webhooks_not_configured'],
      [WARN, 503, 'profile_picture_busy'],
      [ERROR, 500, 'internal_error'],
      [ERROR, 500, 'internal_error'],
    ]);
    now = 60_000;
    logRequest(answer(503, 'webhooks_not_configured'), 'later', performance.now());
    expect(lines.at(-1)).toMatchObject({ level: WARN, code: 'webhooks_not_configured', suppressed: 4 });
  });

  it('at info every request has its line; the repeats of a coded 503 are info, the first of an interval warn', () => {
    const { log, lines } = captured('info');
    const logRequest = requestLogger(log, { intervalMs: 60_000, now: () => 0 });
    logRequest(answer(503, 'payments_not_configured'), 'a', performance.now());
    logRequest(answer(503, 'payments_not_configured'), 'b', performance.now());
    logRequest(answer(200), 'c', performance.now());
    logRequest(answer(502), 'd', performance.now());
    expect(lines.map((l) => [l.level, l.status])).toEqual([
      [WARN, 503],
      [INFO, 503],
      [INFO, 200],
      [ERROR, 502],
    ]);
  });
});
