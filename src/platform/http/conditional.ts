/**
 * Conditional GET (RFC 9110 section 13): validators on a response and the 304 answer.
 *  - ETag: a strong validator, the SHA-1 of the exact body bytes (base64url).
 *  - If-None-Match wins over If-Modified-Since; `*` or any listed tag (weak comparison) -> 304.
 *  - If-Modified-Since (only without If-None-Match): 304 when Last-Modified (whole seconds) is not later.
 * A 304 carries ETag, Last-Modified, Cache-Control and Vary, and no body.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';

export function etagOf(body: Buffer | string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

function matchesIfNoneMatch(header: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const t = raw.trim();
    if (t === '*' || t.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

interface Validators {
  etag: string;
  lastModified?: Date;
  /** e.g. `public, max-age=0, must-revalidate` or `private, max-age=0, must-revalidate`. */
  cacheControl: string;
  vary?: string;
}

/** HTTP-dates of the Date objects a cached page keeps (the same object on every hit). */
const httpDates = new WeakMap<Date, string>();

function httpDate(d: Date): string {
  let s = httpDates.get(d);
  if (s === undefined) httpDates.set(d, (s = d.toUTCString()));
  return s;
}

/** Sets the validators and caching headers; answers 304 (and returns true) when the request's condition holds. */
export function answerConditional(ctx: Context, v: Validators): boolean {
  ctx.set('ETag', v.etag);
  if (v.lastModified) ctx.set('Last-Modified', httpDate(v.lastModified));
  ctx.set('Cache-Control', v.cacheControl);
  // ctx.vary parses and merges the header; with none set yet (the usual case) it is just this value.
  if (v.vary) {
    if (ctx.response.get('Vary')) ctx.vary(v.vary);
    else ctx.set('Vary', v.vary);
  }
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const inm = ctx.get('if-none-match');
  let notModified = false;
  if (inm) notModified = matchesIfNoneMatch(inm, v.etag);
  else if (v.lastModified) {
    const ims = Date.parse(ctx.get('if-modified-since'));
    notModified = !Number.isNaN(ims) && Math.floor(v.lastModified.getTime() / 1000) * 1000 <= ims;
  }
  if (notModified) {
    ctx.status = 304;
    ctx.body = null;
  }
  return notModified;
}

export const PUBLIC_REVALIDATE = 'public, max-age=0, must-revalidate';
export const PRIVATE_REVALIDATE = 'private, max-age=0, must-revalidate';
