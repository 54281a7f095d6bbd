import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import * as wsModule from 'ws';
import { ConnectionCaps } from '../../src/stream/caps.js';
import { backoffDelay } from '../../src/stream/client.js';
import { batchFrame, heartbeatFrame, itemFromEntry, wireOf } from '../../src/stream/rules/frames.js';
import { clientIp, originAllowed, parseUpgradeUrl } from '../../src/stream/handshake.js';

const req = (remote: string, xff?: string) =>
  ({ headers: xff === undefined ? {} : { 'x-forwarded-for': xff }, socket: { remoteAddress: remote } }) as unknown as http.IncomingMessage;

describe('ConnectionCaps', () => {
  it('admits up to the global and per-IP caps and frees slots once', () => {
    const caps = new ConnectionCaps({ maxTotal: 3, maxPerIp: 2 });
    const a1 = caps.acquire('a');
    const a2 = caps.acquire('a');
    expect(a1.ok && a2.ok).toBe(true);
    const a3 = caps.acquire('a');
    expect(a3).toEqual({ ok: false, reason: expect.stringMatching(/this address/) });
    const b1 = caps.acquire('b');
    expect(b1.ok).toBe(true);
    expect(caps.acquire('c')).toEqual({ ok: false, reason: expect.stringMatching(/capacity/) });
    if (a1.ok) {
      a1.release();
      a1.release();
    }
    expect(caps.count()).toBe(2);
    expect(caps.count('a')).toBe(1);
    expect(caps.acquire('c').ok).toBe(true);
  });
});

describe('handshake', () => {
  it('uses the socket address unless a proxy is trusted', () => {
    expect(clientIp(req('::ffff:127.0.0.3', '1.2.3.4'), false)).toBe('127.0.0.3');
    expect(clientIp(req('127.0.0.1', '1.2.3.4'), true)).toBe('1.2.3.4');
    expect(clientIp(req('127.0.0.1', '6.6.6.6, 1.2.3.4'), true)).toBe('1.2.3.4');
    expect(clientIp(req('127.0.0.1', ''), true)).toBe('127.0.0.1');
  });

  it('compares the Origin exactly', () => {
    expect(originAllowed('http://127.0.0.1:8000', 'http://127.0.0.1:8000')).toBe(true);
    expect(originAllowed(undefined, 'http://127.0.0.1:8000')).toBe(false);
    expect(originAllowed('http://127.0.0.1:8000/', 'http://127.0.0.1:8000')).toBe(false);
  });

  it('reads the path and cursor', () => {
    expect(parseUpgradeUrl('/ws/news/?cursor=1-2')).toMatchObject({ path: '/ws/news/', cursor: '1-2' });
    expect(parseUpgradeUrl('/ws/news/')).toMatchObject({ path: '/ws/news/', cursor: null });
    expect(parseUpgradeUrl('/sse/news/?tag=a&tag=b').query.getAll('tag')).toEqual(['a', 'b']);
    // An absolute target with a host URL cannot parse is no path of ours (not a crash).
    expect(parseUpgradeUrl('http://[/ws/news/').path).toBe('');
  });
});

describe('frames', () => {
  it('passes on only the spec fields of an event', () => {
    const spec = {
      type: 'news.approved',
      id: 1,
      slug: 's',
      status: 'approved',
      headline: 'h',
      date_posted: 'd',
      origin: 'manual',
      previous_status: 'submitted',
      sponsored: null,
    };
    const it1 = itemFromEntry('1-0', ['e', JSON.stringify({ ...spec, internal: 'x' })])!;
    expect(JSON.parse(it1.json)).toEqual(spec);
    expect(itemFromEntry('1-0', ['e', '{"type":"news.other"}'])).toBeNull();
    expect(itemFromEntry('1-0', ['e', 'not json'])).toBeNull();
    expect(itemFromEntry('1-0', ['x', '{}'])).toBeNull();
    expect(itemFromEntry('1-0', ['e', JSON.stringify({ type: 'news.killed', id: 2 })])!.staffOnly).toBe(true);
  });

  it("passes the event log's event_id on (an integer only), so clients can drop duplicates", () => {
    const withId = itemFromEntry('1-0', [
      'e',
      JSON.stringify({ type: 'news.approved', id: 1, slug: 's', status: 'approved', headline: 'h', date_posted: 'd', origin: 'manual', sponsored: null, event_id: 42 }),
    ])!;
    expect(JSON.parse(withId.json)).toMatchObject({ id: 1, event_id: 42 });
    const bogus = itemFromEntry('1-0', ['e', JSON.stringify({ type: 'news.approved', id: 1, event_id: '42; drop' })])!;
    expect(JSON.parse(bogus.json)).not.toHaveProperty('event_id');
  });

  it('builds {events, t, cursor}', () => {
    const items = [itemFromEntry('1-0', ['e', JSON.stringify({ type: 'news.sponsored', id: 3, sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } })])!];
    const f = batchFrame(items, { upTo: '1-0', also: [] }, 1700000000);
    expect(JSON.parse(String(f.data))).toEqual({
      events: [expect.objectContaining({ id: 3, sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } })],
      t: 1700000000,
      cursor: '1-0',
    });
  });
});

// ws's own framer and parser (exported by ws, not declared by @types/ws).
const { Sender, Receiver } = wsModule as unknown as {
  Sender: { frame(data: Buffer, o: { fin: boolean; rsv1: boolean; opcode: number; mask: boolean; readOnly: boolean }): Buffer[] };
  Receiver: new (o: { isServer: boolean }) => NodeJS.WritableStream & { on(e: 'message', cb: (d: Buffer, isBinary: boolean) => void): void };
};

describe('wireOf (one framing shared by every client)', () => {
  const payloads = [125, 126, 65_535, 65_536, 200_000].map((n) => `{"events":[],"pad":"${'x'.repeat(n - 23)}"}`);

  it.each(payloads.map((p) => [p.length, p]))('frames a %i-byte payload exactly as ws does, and ws parses it back', async (_n, payload) => {
    const items = [{ id: '1-0', type: 'news.approved' as const, json: '{}', staffOnly: false, sponsored: false, eventId: null, attrs: null }];
    const frame = { ...batchFrame(items, { upTo: '1-0', also: [] }, 1), data: Buffer.from(payload) };
    const wire = wireOf(frame);
    const ours = Buffer.concat(Sender.frame(frame.data, { fin: true, rsv1: false, opcode: 1, mask: false, readOnly: false }));
    expect(wire.equals(ours)).toBe(true);
    expect(wireOf(frame)).toBe(wire); // cached: framed once however many sockets it goes to

    const receiver = new Receiver({ isServer: false });
    const got = new Promise<[string, boolean]>((resolve) => receiver.on('message', (d: Buffer, isBinary: boolean) => resolve([String(d), isBinary])));
    receiver.write(wire);
    expect(await got).toEqual([payload, false]);
  });

  it('frames the control frames too', () => {
    expect(wireOf(heartbeatFrame).subarray(2).toString()).toBe('{"type":"heartbeat"}');
    expect([...wireOf(heartbeatFrame).subarray(0, 2)]).toEqual([0x81, heartbeatFrame.data.length]);
  });
});

describe('client backoff', () => {
  it('grows exponentially with full jitter up to the cap', () => {
    expect(backoffDelay(0, 500, 30_000, () => 0.999)).toBe(499);
    expect(backoffDelay(3, 500, 30_000, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, 500, 30_000, () => 0.999)).toBe(29_970);
    expect(backoffDelay(5, 500, 30_000, () => 0)).toBe(0);
  });
});
