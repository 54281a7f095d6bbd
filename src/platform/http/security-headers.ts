/**
 * Security headers on every response, and the CORS policy.
 * CORS: only TRUSTED_ORIGIN (the service's own web front end) gets CORS headers, with credentials;
 * other browser origins get none, so a foreign page can neither read responses nor send credentialed
 * writes (the cross-site check refuses those anyway). Non-browser clients are unaffected by CORS.
 */
import type { Context, Middleware } from 'koa';

const CSP_HTML = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const CSP_API = "default-src 'none'; frame-ancestors 'none'";

/** ctx.response.is('html') without type-is's parsing on every response. */
const isHtml = (contentType: unknown) => typeof contentType === 'string' && /^\s*text\/html\s*(;|$)/i.test(contentType);

interface SecurityOptions {
  trustedOrigin: string;
  https: boolean;
  /** A page's own Content-Security-Policy (the queue dashboard's), else the default. */
  cspOverride?: (ctx: Context) => string | undefined;
}

/** The headers every response gets once it is complete (set last, by securityHeaders and by the memory lane). */
export function finalSecurityHeaders(opts: SecurityOptions): (ctx: Context) => void {
  return (ctx) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Content-Security-Policy', opts.cspOverride?.(ctx) ?? (isHtml(ctx.response.get('Content-Type')) ? CSP_HTML : CSP_API));
    if (opts.https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  };
}

export function securityHeaders(opts: SecurityOptions): Middleware {
  const final = finalSecurityHeaders(opts);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    const corsOk = origin === opts.trustedOrigin;
    if (corsOk) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, PAYMENT-REQUIRED, PAYMENT-RESPONSE');
      ctx.vary('Origin');
    }
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      // Preflight: answered here for the trusted origin, refused (no CORS headers) for others.
      if (corsOk) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Request-Id, Payment-Signature, X-Payment-Tx, X-Payment-From');
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    try {
      await next();
    } finally {
      final(ctx);
    }
  };
}
