/**
 * API traffic for the restart drills: virtual users that submit articles (half with a headline,
 * half through the page-title job), approve them (which publishes news.approved to the stream),
 * read the feed, check URLs and run provenance checks, recording every outcome; plus the audit
 * of what a fault cost: 5xx other than 503-with-a-code, transport failures, hangs, events that
 * never reached the stream, jobs that never ran, WebSocket clients that missed events.
 */
import { eventStreamKey } from '../../../src/platform/events/events.js';
import { Api, auditClients, createUser, lastStreamId, streamEventsAfter, summarize, type Outcome, type PageSite, type StreamClient, type User } from './actors.js';
import { JWT_SECRET, sleep, type Stack } from './stack.js';

interface Traffic {
  api: Api;
  staff: User;
  /** Articles the API acknowledged (201), and those it approved (200). */
  submitted: Map<number, { url: string; supplied: boolean }>;
  approved: Set<number>;
  stop(): Promise<void>;
}

let seq = 0;

export async function startTraffic(stack: Stack, site: PageSite, opts: { users?: number; pauseMs?: number } = {}): Promise<Traffic> {
  let addr = 0;
  const api = new Api(stack.webUrl, { timeoutMs: 30_000, localAddress: () => `127.0.0.${2 + (addr++ % 250)}` });
  const staff = await createUser(stack.db, JWT_SECRET, ['staff', 'editor']);
  const submitted = new Map<number, { url: string; supplied: boolean }>();
  const approved = new Set<number>();
  let running = true;
  const loop = async (v: number) => {
    while (running) {
      const n = ++seq;
      const supplied = n % 2 === 0;
      const url = `${site.url}/t/${process.pid}-${n}`;
      const s = await api.post('submit', '/api/v1/news/post', supplied ? { url, headline: `Drill headline ${n}` } : { url }, staff.bearer);
      if (s.status === 201) {
        submitted.set(s.body.article_id, { url, supplied });
        const a = await api.post('approve', `/api/v1/news/${s.body.article_id}/approve`, undefined, staff.bearer);
        if (a.status === 200) approved.add(s.body.article_id);
      }
      await api.get('feed', '/api/v1/news/?sort_type=new&per_page=20');
      await api.get('check', `/api/v1/news/check?url=${encodeURIComponent(url)}`);
      if (n % 3 === 0) await api.post('provenance', '/api/v1/provenance/check', { text: `Drill headline ${n - 1}` });
      await sleep(opts.pauseMs ?? 50);
      void v;
    }
  };
  const loops = Array.from({ length: opts.users ?? 4 }, (_, i) => loop(i));
  return {
    api,
    staff,
    submitted,
    approved,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

interface FaultWindow {
  downAt: number;
  upAt: number;
}

export interface TrafficAudit {
  requests: number;
  byOperation: Record<string, Record<string, number>>;
  during: { requests: number; unavailable503: number; otherFailures: number };
  /** 5xx other than 503 with an error code, transport errors, answers slower than the hang limit. */
  failures: string[];
  hangs: number;
  /** From the service coming back to the first successful submission, and to the last failure. */
  recoveryMs: number | null;
  lastFailureAfterUpMs: number | null;
  lost: string[];
  notes: string[];
}

/** Judge the outcomes of a run with one fault window. */
export async function auditTraffic(
  stack: Stack,
  t: Traffic,
  fault: FaultWindow,
  opts: { hangMs?: number; allowTransportErrors?: (o: Outcome) => boolean } = {},
): Promise<TrafficAudit> {
  const outcomes = t.api.outcomes;
  const hangMs = opts.hangMs ?? 15_000;
  const failures: string[] = [];
  let hangs = 0;
  let unavailable = 0;
  let during = 0;
  let otherDuring = 0;
  let lastFailure: number | null = null;
  for (const o of outcomes) {
    const inWindow = o.at + o.ms >= fault.downAt && o.at <= fault.upAt;
    if (inWindow) during++;
    if (o.ms > hangMs) hangs++;
    const ok503 = o.status === 503 && typeof o.code === 'string' && o.retryAfter !== null;
    if (o.status !== null && o.status >= 500 && !ok503) failures.push(`${o.op} ${o.status} ${o.code ?? ''} at +${o.at - fault.downAt} ms`);
    if (o.status === null && !(opts.allowTransportErrors?.(o) ?? false)) failures.push(`${o.op} transport error ${o.error} at +${o.at - fault.downAt} ms`);
    if (o.status === 503) {
      unavailable++;
      lastFailure = Math.max(lastFailure ?? 0, o.at + o.ms);
    } else if (inWindow && (o.status === null || o.status >= 500)) otherDuring++;
  }
  const firstOk = outcomes.filter((o) => o.op === 'submit' && o.status === 201 && o.at >= fault.upAt).sort((a, b) => a.at - b.at)[0];
  const lost: string[] = [];
  const notes: string[] = [];

  // Every approval the API acknowledged has its event in the stream.
  const events = await streamEventsAfter(stack.redis, eventStreamKey(stack.prefix), '0-0');
  const inStream = new Set(events.map((e) => e.key));
  const missingEvents = [...t.approved].filter((id) => !inStream.has(`news.approved:${id}`));
  if (missingEvents.length) lost.push(`${missingEvents.length} acknowledged approvals have no news.approved event (${missingEvents.slice(0, 5).join(', ')})`);
  // Every acknowledged submission is stored; auto-headlines were applied (the job was not lost).
  const rows = await stack.db.selectFrom('articles').select(['id', 'url', 'headline_source', 'status']).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missingRows = [...t.submitted.keys()].filter((id) => !byId.has(id));
  if (missingRows.length) lost.push(`${missingRows.length} acknowledged submissions are not stored`);
  const provisional = [...t.submitted.entries()].filter(([id, s]) => !s.supplied && byId.get(id)?.headline_source === 'provisional');
  if (provisional.length)
    lost.push(
      `${provisional.length} acknowledged submissions never got their page title (${provisional
        .slice(0, 5)
        .map(([id]) => id)
        .join(', ')})`,
    );
  // Stored but not acknowledged (the client saw 503 after the insert): a retry gets 409 with the id.
  const acknowledgedUrls = new Set([...t.submitted.values()].map((s) => s.url));
  const orphans = rows.filter((r) => r.url.includes('/t/') && !acknowledgedUrls.has(r.url));
  if (orphans.length) {
    notes.push(`${orphans.length} submissions were stored although the client got an error (a retry answers 409 duplicate_submission with the article id)`);
    const stuck = orphans.filter((r) => r.headline_source === 'provisional');
    if (stuck.length) notes.push(`${stuck.length} of them kept a provisional headline (their page-title job was never enqueued)`);
  }
  return {
    requests: outcomes.length,
    byOperation: summarize(outcomes),
    during: { requests: during, unavailable503: unavailable, otherFailures: otherDuring },
    failures,
    hangs,
    recoveryMs: firstOk ? firstOk.at - fault.upAt : null,
    lastFailureAfterUpMs: lastFailure === null ? null : Math.max(0, lastFailure - fault.upAt),
    lost: [...lost, ...failures.slice(0, 10), ...(hangs ? [`${hangs} requests hung over ${hangMs} ms`] : [])],
    notes,
  };
}

/** Stream clients audit against everything published after `baseline`. */
export async function auditStream(stack: Stack, clients: StreamClient[], baseline: string) {
  const events = await streamEventsAfter(stack.redis, eventStreamKey(stack.prefix), baseline);
  return auditClients(clients, events);
}

export { lastStreamId };
