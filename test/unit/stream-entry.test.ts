/**
 * The stream entry format (src/platform/events/events.ts, "Stream entries"): the relay writes each event ready to
 * send, and the ws process reads ready entries and older ones alike into the same item.
 */
import { describe, expect, it } from 'vitest';
import { itemFromEntry } from '../../src/stream/rules/frames.js';
import { clientEvent, entryFields } from '../../src/platform/events/events.js';

const ADDR = '0x' + 'ab'.repeat(20);
// As recorded in the event log: the spec's fields in another order, plus fields clients never see.
const recorded = {
  event_id: 42,
  article_id: 7,
  headline: 'Lido ships withdrawals',
  type: 'news.approved',
  id: 7,
  slug: 'lido-ships-withdrawals',
  status: 'approved',
  previous_status: 'submitted',
  date_posted: '2026-11-25T10:00:00Z',
  origin: 'manual',
  internal_note: 'not for clients',
};
const attrs = { tags: ['DeFi', 'l2'], token_addresses: [ADDR.toUpperCase().replace('0X', '0x')], token_symbols: ['eth'] };
const fieldsOf = (f: string[]) => Object.fromEntries(Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]]));

describe('stream entries', () => {
  it('the relay writes the event as clients get it (spec fields in order, event_id, nothing else), its type, event_id and normalised attributes', () => {
    const f = fieldsOf(entryFields(JSON.stringify(recorded), JSON.stringify(attrs)));
    expect(Object.keys(f)).toEqual(['e', 't', 'i', 'a']);
    expect(f.e).toBe(
      '{"type":"news.approved","id":7,"slug":"lido-ships-withdrawals","status":"approved","headline":"Lido ships withdrawals","date_posted":"2026-11-25T10:00:00Z","origin":"manual","previous_status":"submitted","sponsored":null,"event_id":42}',
    );
    expect(f.t).toBe('news.approved');
    expect(f.i).toBe('42');
    expect(JSON.parse(f.a)).toEqual({ token_addresses: [ADDR], token_symbols: ['ETH'], tags: ['defi', 'l2'] });
  });

  it('a ready entry and an entry in the older form (payload as recorded) read into the same item', () => {
    const ready = itemFromEntry('1-1', entryFields(JSON.stringify(recorded), JSON.stringify(attrs)))!;
    const older = itemFromEntry('1-1', ['e', JSON.stringify(recorded), 'a', JSON.stringify(attrs)])!;
    expect(ready).toEqual(older);
    expect(ready).toMatchObject({ type: 'news.approved', eventId: 42, staffOnly: false, sponsored: false });
    expect(ready.json).not.toContain('internal_note');
    expect(ready.json).not.toContain('defi');
  });

  it('a ready entry is passed on as written: e is not parsed again', () => {
    const item = itemFromEntry('1-1', ['e', '{"as":"written"}', 't', 'news.killed', 'i', '9'])!;
    expect(item).toMatchObject({ json: '{"as":"written"}', type: 'news.killed', staffOnly: true, eventId: 9, attrs: null });
  });

  it('an event without event_id or attributes, a sponsored one, and unreadable attributes', () => {
    const { event_id: _, ...noId } = recorded;
    const f = fieldsOf(entryFields(JSON.stringify(noId), null));
    expect(Object.keys(f)).toEqual(['e', 't']);
    expect(itemFromEntry('1-1', entryFields(JSON.stringify(noId), null))).toMatchObject({ eventId: null, attrs: null });
    expect(itemFromEntry('1-2', entryFields(JSON.stringify({ ...recorded, type: 'news.sponsored' }), null))).toMatchObject({ sponsored: true });
    // Unreadable attributes are left out: the event matches only filters without attribute kinds.
    expect(Object.keys(fieldsOf(entryFields(JSON.stringify(recorded), '{not json')))).toEqual(['e', 't', 'i']);
    expect(Object.keys(fieldsOf(entryFields(JSON.stringify(recorded), '["tags"]')))).toEqual(['e', 't', 'i']);
  });

  it('what is not an event of a known type is written as it came and skipped by the reader', () => {
    for (const payload of ['{not json', '{"type":"news.unknown","id":1}', '[1]', 'null', '{"id":1}']) {
      expect(clientEvent(payload)).toBeNull();
      const f = entryFields(payload, '{"tags":[]}');
      expect(f).toEqual(['e', payload, 'a', '{"tags":[]}']);
      expect(itemFromEntry('1-1', f)).toBeNull();
    }
    expect(itemFromEntry('1-1', ['e', '{}', 't', 'news.unknown'])).toBeNull();
    expect(itemFromEntry('1-1', ['t', 'news.approved'])).toBeNull();
    // An event_id that is not a safe integer is not passed on as one.
    expect(itemFromEntry('1-1', ['e', '{}', 't', 'news.approved', 'i', '1e400'])!.eventId).toBeNull();
  });
});
