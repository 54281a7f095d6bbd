/**
 * The HTTP side of the WebSocket handshake (and of the SSE request, sse.ts): the path, the Origin
 * check (spec: a missing or other Origin is refused with HTTP 403 before the upgrade), the client
 * address used by the per-IP cap, and the query string (resume cursor, filters: filter.ts).
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';

export const WS_PATH = '/ws/news/';

export interface UpgradeTarget {
  path: string;
  /** The raw `cursor` query parameter, if any (validated by the resume code). */
  cursor: string | null;
  query: URLSearchParams;
}

export function parseUpgradeUrl(url: string | undefined): UpgradeTarget {
  let u: URL;
  try {
    u = new URL(url ?? '/', 'http://ws.invalid');
  } catch {
    // An absolute request target with an invalid host: no path of ours.
    return { path: '', cursor: null, query: new URLSearchParams() };
  }
  return { path: u.pathname, cursor: u.searchParams.get('cursor'), query: u.searchParams };
}

export function originAllowed(origin: string | undefined, trustedOrigin: string): boolean {
  return origin === trustedOrigin;
}

/**
 * The address a per-IP cap counts. Behind a proxy (TRUST_PROXY) it is the right-most
 * X-Forwarded-For entry: the one our proxy appended, which a client cannot forge (entries to its
 * left are whatever the client sent). Without TRUST_PROXY the header is ignored.
 */
export function clientIp(req: http.IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const value = Array.isArray(xff) ? xff.join(',') : xff;
    if (value) {
      const hops = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (hops.length > 0) return normaliseIp(hops[hops.length - 1]);
    }
  }
  return normaliseIp(req.socket.remoteAddress ?? 'unknown');
}

function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** Answer the upgrade request with a plain HTTP error in the API's error shape, then close. */
export function rejectHandshake(socket: Duplex, status: number, code: string, message: string, details: unknown = null): void {
  const body = JSON.stringify({ error: { code, message, details } });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
