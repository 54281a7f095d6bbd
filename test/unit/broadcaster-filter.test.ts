import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/stream/batcher.js';
import { Connection, type ConnectionSocket } from '../../src/stream/connection.js';
import type { Cursor } from '../../src/stream/rules/cursor.js';
import { FanOut } from '../../src/stream/fan-out.js';
import { MAX_FILTER_VALUES, parseStreamFilter, type StreamFilter } from '../../src/stream/rules/filter.js';
import { batchFrame, heartbeatFrame, itemFromEntry, reconcileFrame, sseOf, type OutFrame, type StreamItem } from '../../src/stream/rules/frames.js';
import { matchesEventFilter, normalizeAttrs, type EventAttrs, type EventFilter } from '../../src/platform/events/filter.js';

const ADDR = '0x' + 'ab'.repeat(20);
const parse = (qs: string) => parseStreamFilter(new URLSearchParams(qs));
const filterOf = (qs: string): StreamFilter | null => {
  const r = parse(qs);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.filter;
};

describe('parseStreamFilter', () => {
  it('is no filter without filter parameters (other parameters are ignored)', () => {
    expect(parse('')).toEqual({ ok: true, filter: null });
    expect(parse('cursor=1-1&v=2&last_event_id=9')).toEqual({ ok: true, filter: null });
  });

  it('normalises values: addresses and tags lower-case, symbols upper-case, repeats and comma lists merged', () => {
    const f = filterOf(`token_address=${ADDR.toUpperCase().replace('0X', '0x')}&token_symbol=eth,Btc&token_symbol=ETH&tag=DeFi&types=news.approved,news.tsunami`)!;
    expect([...f.token_addresses!]).toEqual([ADDR]);
    expect([...f.token_symbols!]).toEqual(['ETH', 'BTC']);
    expect([...f.tags!]).toEqual(['defi']);
    expect([...f.types!]).toEqual(['news.approved', 'news.tsunami']);
  });

  it('gives equal filters equal keys whatever the order, case and repetition of their values', () => {
    const a = filterOf('tag=defi&token_symbol=eth&token_symbol=btc&types=news.tsunami,news.approved')!;
    const b = filterOf('types=news.approved,news.tsunami&token_symbol=BTC,ETH,eth&tag=DEFI')!;
    expect(a.key).toBe(b.key);
    expect(filterOf('tag=defi')!.key).not.toBe(filterOf('token_symbol=defi')!.key);
    expect(filterOf('types=news.approved')!.key).not.toBe(filterOf('types=news.approved,news.tsunami')!.key);
  });

  it('names each bad parameter', () => {
    const bad = (qs: string) => {
      const r = parse(qs);
      return r.ok ? [] : r.issues.map((i) => `${i.path}:${i.code}`);
    };
    expect(bad('types=news.nope')).toEqual(['query.types:invalid_value']);
    expect(bad('types=news.approved&types=news.tsunami')).toEqual(['query.types:repeated']);
    expect(bad('token_address=0xabc')).toEqual(['query.token_address:invalid_value']);
    expect(bad('token_symbol=e t h')).toEqual(['query.token_symbol:invalid_value']);
    expect(bad('tag=')).toEqual(['query.tag:invalid_value']);
    expect(bad('tag=a--b')).toEqual(['query.tag:invalid_value']);
    expect(bad(`tag=${Array.from({ length: MAX_FILTER_VALUES + 1 }, (_, i) => `t${i}`).join(',')}`)).toEqual(['query.tag:too_many']);
    expect(bad('tags=defi&type=news.approved')).toEqual(['query.tags:unknown_parameter', 'query.type:unknown_parameter']);
    expect(bad('types=x&tag=!&token_symbol=ok')).toEqual(['query.types:invalid_value', 'query.tag:invalid_value']);
  });

  it('accepts base58 addresses as articles do', () => {
    expect([...filterOf('token_address=So11111111111111111111111111111111111111112')!.token_addresses!]).toEqual(['so11111111111111111111111111111111111111112']);
  });
});

describe('matchesEventFilter', () => {
  const attrs = (a: Partial<EventAttrs>): EventAttrs => normalizeAttrs({ tags: [], token_addresses: [], token_symbols: [], ...a })!;
  const f = (qs: string) => filterOf(qs)!;

  it('ANDs across kinds, ORs within a kind, and needs attributes for any attribute kind', () => {
    const article = attrs({ tags: ['defi', 'l2'], token_symbols: ['Eth'], token_addresses: [ADDR] });
    expect(matchesEventFilter(f('tag=defi'), 'news.approved', article)).toBe(true);
    expect(matchesEventFilter(f('tag=nft,l2'), 'news.approved', article)).toBe(true);
    expect(matchesEventFilter(f('tag=nft'), 'news.approved', article)).toBe(false);
    expect(matchesEventFilter(f('tag=defi&token_symbol=eth'), 'news.approved', article)).toBe(true);
    expect(matchesEventFilter(f('tag=defi&token_symbol=btc'), 'news.approved', article)).toBe(false);
    expect(matchesEventFilter(f(`tag=nft&token_address=${ADDR}`), 'news.approved', article)).toBe(false);
    expect(matchesEventFilter(f('types=news.tsunami'), 'news.approved', article)).toBe(false);
    // A wire item (no attributes) matches only filters without attribute kinds.
    expect(matchesEventFilter(f('types=news.tsunami'), 'news.tsunami', null)).toBe(true);
    expect(matchesEventFilter(f('types=news.tsunami&tag=defi'), 'news.tsunami', null)).toBe(false);
  });

  it('agrees with the rule as written, for any filter and article', () => {
    const pool = ['a', 'b', 'c', 'd'];
    const kindArb = fc.option(fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1 }), { nil: null });
    const attrsArb = fc.option(
      fc.record({
        tags: fc.array(fc.constantFrom(...pool)),
        token_addresses: fc.array(fc.constantFrom(...pool)),
        token_symbols: fc.array(fc.constantFrom(...pool.map((s) => s.toUpperCase()))),
      }),
      { nil: null },
    );
    const typesArb = fc.option(fc.uniqueArray(fc.constantFrom('x', 'y'), { minLength: 1 }), { nil: null });
    fc.assert(
      fc.property(typesArb, kindArb, kindArb, kindArb, attrsArb, fc.constantFrom('x', 'y'), (types, tags, addrs, syms, a, type) => {
        const filter: EventFilter = {
          types: types && new Set(types),
          tags: tags && new Set(tags),
          token_addresses: addrs && new Set(addrs),
          token_symbols: syms && new Set(syms.map((s) => s.toUpperCase())),
        };
        const spec =
          (types === null || types.includes(type)) &&
          (tags === null || (a !== null && a.tags.some((t) => tags.includes(t)))) &&
          (addrs === null || (a !== null && a.token_addresses.some((t) => addrs.includes(t)))) &&
          (syms === null || (a !== null && a.token_symbols.some((t) => syms.map((s) => s.toUpperCase()).includes(t))));
        expect(matchesEventFilter(filter, type, normalizeAttrs(a))).toBe(spec);
      }),
    );
  });
});

describe('stream entries and SSE frames', () => {
  const event = { type: 'news.approved', id: 7, slug: 's', status: 'approved', headline: 'h', date_posted: 'd', origin: 'manual', sponsored: null, event_id: 42 };

  it('parses field a once into normalised attributes and never puts it in the event JSON', () => {
    const item = itemFromEntry('1-1', ['e', JSON.stringify(event), 'a', JSON.stringify({ tags: ['DeFi'], token_addresses: [ADDR.toUpperCase()], token_symbols: ['eth'] })])!;
    expect(item.attrs).toEqual({ tags: ['defi'], token_addresses: [ADDR.toUpperCase().toLowerCase()], token_symbols: ['ETH'] });
    expect(item.eventId).toBe(42);
    expect(JSON.parse(item.json)).toEqual(event);
    expect(item.json).not.toContain('defi');
    expect(itemFromEntry('1-2', ['e', JSON.stringify(event)])!.attrs).toBeNull();
    expect(itemFromEntry('1-3', ['e', JSON.stringify(event), 'a', '{not json'])!.attrs).toBeNull();
    expect(itemFromEntry('1-4', ['e', JSON.stringify({ ...event, event_id: undefined })])!.eventId).toBeNull();
  });

  it('writes one SSE message per event with id = event_id, once per frame', () => {
    const a = itemFromEntry('1-1', ['e', JSON.stringify(event)])!;
    const b = itemFromEntry('1-2', ['e', JSON.stringify({ ...event, id: 8, event_id: undefined })])!;
    const frame = batchFrame([a, b], { upTo: '1-2', also: [] }, 1);
    const text = sseOf(frame).toString();
    expect(text).toBe(`id: 42\ndata: ${a.json}\n\ndata: ${b.json}\n\n`);
    expect(sseOf(frame)).toBe(sseOf(frame));
    expect(sseOf(heartbeatFrame).toString()).toBe(': hb\n\n');
    expect(sseOf(reconcileFrame('backlog')).toString()).toBe('event: reconcile\ndata: {"type":"reconcile","reason":"backlog"}\n\n');
  });
});

describe('filtered fan-out', () => {
  let n = 0;
  const item = (type: StreamItem['type'], tags: string[] | null): StreamItem => {
    n++;
    return {
      id: `5-${n}`,
      type,
      json: `{"id":${n}}`,
      staffOnly: type === 'news.submitted',
      sponsored: type === 'news.sponsored',
      eventId: n,
      attrs: tags && { tags, token_addresses: [], token_symbols: [] },
    };
  };
  class Sock implements ConnectionSocket {
    frames: OutFrame[] = [];
    bufferedAmount = 0;
    isOpen = () => true;
    send = (f: OutFrame) => void this.frames.push(f);
    terminate = () => undefined;
  }
  const conn = (qs: string, staff = false) => {
    const s = new Sock();
    return { s, c: new Connection(s, { queueMax: 100, sendBufferLimit: 1e9 }, { staff, mode: 'live', filter: filterOf(qs) }) };
  };

  it('builds one frame per group and writes the same frame to every member', () => {
    const fan = new FanOut({ batchMs: 60_000, batchMax: 3 });
    const [a, b, c, plain, staff] = [conn('tag=defi'), conn('tag=DEFI'), conn('tag=nft'), conn(''), conn('tag=defi', true)];
    for (const x of [a, b, c, plain, staff]) fan.join(x.c);
    expect(fan.stats()).toEqual({ groups: 5, filteredConnections: 4 });
    fan.push([
      item('news.approved', ['defi']),
      item('news.submitted', ['defi']),
      item('news.approved', ['nft']),
      item('news.tsunami', null),
      item('news.approved', ['defi', 'nft']),
    ]);
    fan.flush();
    expect(a.s.frames).toHaveLength(1);
    expect(a.s.frames[0]).toBe(b.s.frames[0]);
    expect(a.s.frames[0].kind === 'batch' && a.s.frames[0].items.map((i) => i.eventId)).toEqual([n - 4, n]);
    expect(c.s.frames.flatMap((f) => (f.kind === 'batch' ? f.items.map((i) => i.eventId) : []))).toEqual([n - 2, n]);
    expect(staff.s.frames.flatMap((f) => (f.kind === 'batch' ? f.items.map((i) => i.eventId) : []))).toEqual([n - 4, n - 3, n]);
    expect(plain.s.frames.flatMap((f) => (f.kind === 'batch' ? f.items.length : []))).toEqual([3, 1]);
    for (const x of [a, b, c, staff]) fan.leave(x.c);
    expect(fan.stats()).toEqual({ groups: 2, filteredConnections: 0 });
    fan.close();
  });

  it("advances a filtered group's cursor over the events it leaves out", () => {
    const emitted: Cursor[] = [];
    const b = new Batcher({ batchMs: 60_000, batchMax: 10 }, (_items, cursor) => emitted.push(cursor));
    b.push(item('news.approved', ['defi']));
    b.advance('5-999');
    b.flush();
    expect(emitted).toEqual([{ upTo: '5-999', also: [] }]);
    b.close();
  });
});
