/**
 * WebSocket clients of the event benchmark, run as a child process (forked with an IPC channel) so
 * that they do not share an event loop with anything they measure. Each is a real `ws` client of
 * /ws/news/ (anonymous, or staff with an access_token cookie) that records, for every event it
 * receives, the wall-clock time (Date.now(), the same system clock PostgreSQL and Redis stamp
 * their times with) at which the frame's `message` event fired, by event_id.
 *
 * IPC: {cmd: 'connect', ...} -> {type: 'connected'}; {cmd: 'report', events: [eventId, commitMs,
 * xaddMs][]} -> {type: 'report'} with latency histograms over every (client, event) pair and the
 * first and last receipt of each event among this process's clients; {cmd: 'close'}.
 */
import WebSocket from 'ws';
import { MsHistogram } from './stats.js';
import { onMessage } from './child.js';

export interface ConnectCmd {
  cmd: 'connect';
  url: string;
  origin: string;
  count: number;
  /** The first `staff` clients send the staff cookie. */
  staff: number;
  staffCookie: string;
  /** Events are recorded by event_id - base, for ids in (base, base + capacity]. */
  base: number;
  capacity: number;
}

export interface ClientReport {
  type: 'report';
  commitToClient: { anon: [number, number][]; staff: [number, number][]; negatives: number; max: number };
  xaddToClient: { all: [number, number][]; negatives: number; max: number };
  /** Per event of the request (same order): first and last receipt in this process (0 = none). */
  first: number[];
  last: number[];
  delivered: number;
  missing: number;
  duplicates: number;
  /** Events received that were not asked about (outside the window: warm-up, tail). */
  outside: number;
  reconciles: number;
  closes: number;
  clients: number;
}

interface Client {
  ws: WebSocket;
  staff: boolean;
  recv: Float64Array;
}

if (process.send) {
  const clients: Client[] = [];
  let base = 0;
  let duplicates = 0;
  let reconciles = 0;
  let closes = 0;
  let closing = false;
  const EVENT_ID = /"event_id":(\d+)/g;

  const connect = (c: ConnectCmd, staff: boolean) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(c.url, { origin: c.origin, perMessageDeflate: false, headers: staff ? { cookie: c.staffCookie } : {} });
      const client: Client = { ws, staff, recv: new Float64Array(c.capacity) };
      ws.on('message', (data) => {
        const at = Date.now();
        const text = data.toString();
        if (text.charCodeAt(2) === 116 /* {"type":... */) {
          if (text.startsWith('{"type":"reconcile"')) reconciles++;
          return;
        }
        EVENT_ID.lastIndex = 0;
        for (let m = EVENT_ID.exec(text); m; m = EVENT_ID.exec(text)) {
          const i = Number(m[1]) - base - 1;
          if (i < 0 || i >= client.recv.length) continue;
          if (client.recv[i] !== 0) duplicates++;
          else client.recv[i] = at;
        }
      });
      ws.once('open', () => {
        clients.push(client);
        resolve();
      });
      ws.once('error', reject);
      ws.on('close', () => {
        if (!closing) closes++;
      });
    });

  process.on('disconnect', () => process.exit(0));
  onMessage(async (msg: any) => {
    if (msg.cmd === 'connect') {
      const c = msg as ConnectCmd;
      base = c.base;
      let failed = 0;
      let next = 0;
      const t0 = Date.now();
      // 16 handshakes at a time: the ws process checks each staff cookie, anonymous ones are cheap.
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = next++; i < c.count; i = next++) {
            try {
              await connect(c, i < c.staff);
            } catch {
              failed++;
            }
          }
        }),
      );
      process.send!({ type: 'connected', ok: clients.length, staff: clients.filter((x) => x.staff).length, failed, ms: Date.now() - t0 });
    } else if (msg.cmd === 'report') {
      const events = msg.events as [number, number, number][];
      const anon = new MsHistogram();
      const staff = new MsHistogram();
      const fromXadd = new MsHistogram();
      const first = new Array<number>(events.length).fill(0);
      const last = new Array<number>(events.length).fill(0);
      let delivered = 0;
      let missing = 0;
      const asked = new Set<number>();
      for (let k = 0; k < events.length; k++) {
        const [id, commit, xadd] = events[k];
        const i = id - base - 1;
        asked.add(i);
        for (const cl of clients) {
          const at = i >= 0 && i < cl.recv.length ? cl.recv[i] : 0;
          if (at === 0) {
            missing++;
            continue;
          }
          delivered++;
          (cl.staff ? staff : anon).add(at - commit);
          if (xadd > 0) fromXadd.add(at - xadd);
          if (first[k] === 0 || at < first[k]) first[k] = at;
          if (at > last[k]) last[k] = at;
        }
      }
      let outside = 0;
      for (const cl of clients) for (let i = 0; i < cl.recv.length; i++) if (cl.recv[i] !== 0 && !asked.has(i)) outside++;
      const report: ClientReport = {
        type: 'report',
        commitToClient: { anon: anon.sparse(), staff: staff.sparse(), negatives: anon.negatives + staff.negatives, max: Math.max(anon.max, staff.max) },
        xaddToClient: { all: fromXadd.sparse(), negatives: fromXadd.negatives, max: fromXadd.max },
        first,
        last,
        delivered,
        missing,
        duplicates,
        outside,
        reconciles,
        closes,
        clients: clients.length,
      };
      process.send!(report);
    } else if (msg.cmd === 'close') {
      closing = true;
      for (const cl of clients) cl.ws.terminate();
      process.exit(0);
    }
  });
  process.send({ type: 'ready' });
}
