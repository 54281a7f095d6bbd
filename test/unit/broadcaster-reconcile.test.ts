import { describe, expect, it } from 'vitest';
import { historyReaches, judgeRead, parseStreamInfo, streamInfoFrom, type StreamInfo } from '../../src/stream/rules/reconcile.js';

const info = (o: Partial<StreamInfo> = {}): StreamInfo => ({
  lastGeneratedId: '100-0',
  length: 10,
  entriesAdded: 10,
  maxDeletedId: '0-0',
  firstEntryId: '50-0',
  ...o,
});

describe('judgeRead', () => {
  it('sees no loss while the last-read entry is still in the stream', () => {
    expect(judgeRead({ position: { id: '60-0', anchored: true }, entries: 3, positionPresent: true, info: undefined })).toEqual({ lost: false, reposition: false });
  });

  it('reports a loss when the last-read entry was trimmed away', () => {
    expect(judgeRead({ position: { id: '40-0', anchored: true }, entries: 3, positionPresent: false, info: undefined })).toEqual({ lost: true, reposition: false });
    // Nothing read: take a new position so the same loss is not reported again.
    expect(judgeRead({ position: { id: '40-0', anchored: true }, entries: 0, positionPresent: false, info: undefined })).toEqual({ lost: true, reposition: true });
  });

  it('judges a position on an empty stream by its counters', () => {
    const pos = { id: '30-0', anchored: false as const, addedBefore: 5 };
    expect(judgeRead({ position: pos, entries: 2, positionPresent: null, info: info({ entriesAdded: 7, length: 2 }) }).lost).toBe(false);
    expect(judgeRead({ position: pos, entries: 1, positionPresent: null, info: info({ entriesAdded: 7, length: 1 }) }).lost).toBe(true);
    // Recreated stream (counter went back) or a stream behind the position.
    expect(judgeRead({ position: pos, entries: 1, positionPresent: null, info: info({ entriesAdded: 1, length: 1 }) }).lost).toBe(true);
    expect(judgeRead({ position: pos, entries: 0, positionPresent: null, info: info({ lastGeneratedId: '20-0', entriesAdded: 5, length: 0 }) })).toEqual({
      lost: true,
      reposition: true,
    });
  });

  it('treats a vanished stream as a loss unless nothing was ever there', () => {
    expect(judgeRead({ position: { id: '30-0', anchored: false, addedBefore: 0 }, entries: 0, positionPresent: null, info: null })).toEqual({ lost: true, reposition: true });
    expect(judgeRead({ position: { id: '0-0', anchored: false, addedBefore: 0 }, entries: 0, positionPresent: null, info: null })).toEqual({ lost: false, reposition: false });
  });
});

describe('historyReaches', () => {
  it('accepts a cursor whose entry is still there', () => {
    expect(historyReaches('60-0', true, info())).toBe(true);
  });
  it('refuses a cursor before the first entry left', () => {
    expect(historyReaches('40-0', false, info())).toBe(false);
  });
  it('accepts a cursor position inside the stream that is not an entry', () => {
    expect(historyReaches('60-5', false, info())).toBe(true);
    expect(historyReaches('60-5', false, info({ maxDeletedId: '70-0' }))).toBe(false);
  });
  it('accepts the stream end, refuses beyond it or without a stream', () => {
    expect(historyReaches('100-0', false, info({ firstEntryId: null, length: 0 }))).toBe(true);
    expect(historyReaches('101-0', false, info())).toBe(false);
    expect(historyReaches('60-0', false, null)).toBe(false);
    expect(historyReaches('60-0', false, info({ firstEntryId: null, length: 0 }))).toBe(false);
  });
});

describe('parseStreamInfo', () => {
  it('reads the counters of XINFO STREAM', () => {
    const reply = [
      'length',
      2,
      'last-generated-id',
      '9-1',
      'max-deleted-entry-id',
      '0-0',
      'entries-added',
      5,
      'first-entry',
      ['9-0', ['e', '{}']],
      'last-entry',
      ['9-1', ['e', '{}']],
    ];
    expect(parseStreamInfo(reply)).toEqual({ lastGeneratedId: '9-1', length: 2, entriesAdded: 5, maxDeletedId: '0-0', firstEntryId: '9-0' });
    expect(parseStreamInfo(['length', 0, 'last-generated-id', '0-0', 'first-entry', null])).toEqual({
      lastGeneratedId: '0-0',
      length: 0,
      entriesAdded: null,
      maxDeletedId: null,
      firstEntryId: null,
    });
  });
});

describe('streamInfoFrom', () => {
  const reply = ['length', 1, 'last-generated-id', '9-0', 'entries-added', 1, 'first-entry', ['9-0', ['e', '{}']]];
  const failed = new Error('ERR some failure');

  it('parses XINFO when it succeeded', () => {
    expect(streamInfoFrom([null, 1], [null, reply])).toMatchObject({ lastGeneratedId: '9-0', length: 1 });
  });

  it('is null when EXISTS said the stream is not there, whatever the XINFO error says', () => {
    expect(streamInfoFrom([null, 0], [failed, null])).toBeNull();
  });

  it('throws the XINFO error when the stream exists (wrong type, or deleted in between)', () => {
    expect(() => streamInfoFrom([null, 1], [failed, null])).toThrow(failed);
  });

  it('throws when EXISTS itself failed', () => {
    expect(() => streamInfoFrom([new Error('EXISTS failed'), null], [failed, null])).toThrow(failed);
  });
});
