/**
 * Who is on a connection: staff (a valid access-token cookie whose roles see the staff-only events,
 * rolesSeeStaffEvents: editors and staff) or anonymous. The ws
 * process never opens Postgres; the roles are the ones copied into the token when it was issued.
 *
 * An invalid or expired cookie is anonymous. A staff token that expires while its connection is
 * open downgrades the connection to public at the token's `exp`: from then on no staff-only event
 * is sent to it (not even one already queued), and its later cursors resume with public
 * visibility. The connection stays open; a client that wants staff events again reconnects with
 * a fresh cookie (its cursor carries it over without loss).
 */
import type http from 'node:http';
import { accessTokenFromCookieHeader, verifyAccessToken } from '../identity/index.js';
import { rolesSeeStaffEvents } from '../platform/events/events.js';

export interface Viewer {
  staff: boolean;
  /** When staff visibility ends (ms since the epoch); null for anonymous viewers. */
  staffUntilMs: number | null;
}

export const anonymous: Viewer = { staff: false, staffUntilMs: null };

export async function viewerFromRequest(req: http.IncomingMessage, jwtSecret: string | undefined): Promise<Viewer> {
  if (!jwtSecret) return anonymous;
  try {
    // A malformed cookie (bad percent-encoding) is anonymous too.
    const token = accessTokenFromCookieHeader(req.headers.cookie);
    if (!token) return anonymous;
    const claims = await verifyAccessToken(jwtSecret, token);
    const until = claims.expiresAt * 1000;
    if (!rolesSeeStaffEvents(claims.roles) || until <= Date.now()) return anonymous;
    return { staff: true, staffUntilMs: until };
  } catch {
    return anonymous;
  }
}
