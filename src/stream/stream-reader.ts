/**
 * Reads the lifecycle-event stream with plain XREAD on its own blocking connection. Not a consumer
 * group: every ws process must see every event, so each keeps its own position.
 *
 * The reader starts at the stream's end (what came before is history, for resuming clients) and
 * never reads from `$`: it always passes the id it read last, so a dropped connection (ioredis
 * reconnects and re-sends the read) resumes exactly where it was. Every read also tells whether the
 * last-read entry is still in the stream; when it is not, events after it may have been trimmed away
 * unread and `onLoss` is called before the events that follow (reconcile.ts).
 *
 * Two kinds of read. While events flow (the previous read returned some), one non-blocking
 * `XRANGE <last-read id> + COUNT n+1`: its first entry is the last-read one when that is still
 * there, so the check and the read are one command, answered atomically. When it returns nothing
 * new the stream has gone quiet and the next read is a blocking XREAD, pipelined with the check
 * (`XRANGE id id`), which returns as soon as an event arrives. On the benchmark VM one command
 * instead of a two-command pipeline per read cut the filtered ws process's CPU by ~6% at 500
 * events/s (src/stream/README.md, "Reading").
 */
import type { Logger } from '../platform/logger.js';
import type { Redis } from '../platform/redis.js';
import { itemFromEntry, type StreamItem } from './rules/frames.js';
import type { RangeConnection } from './range-connection.js';
import { judgeRead, needsInfo, streamInfoFrom, type ReaderPosition, type StreamInfo } from './rules/reconcile.js';
import { compareIds, ZERO_ID, type StreamId } from './rules/stream-id.js';

interface StreamReaderOptions {
  /** A dedicated connection (it spends its time blocked in XREAD). */
  redis: Redis;
  streamKey: string;
  log: Logger;
  /** How long one XREAD blocks; also bounds how late a lost stream (no new events) is noticed. */
  blockMs?: number;
  /** Entries per read. */
  count?: number;
  /**
   * A lean connection for the read made while events flow (range-connection.ts); when it fails,
   * that read goes through `redis`. Without it every read goes through `redis`.
   */
  range?: RangeConnection;
  /**
   * Pause after a read that returned entries (fewer than `count`), so that a steady flow of events
   * is read several at a time instead of one Redis round trip per event: on the 2-core VM of the
   * benchmarks a read costs 0.4-0.8 ms of CPU (mostly the write that wakes Redis), as much as
   * writing a frame to 40-70 clients. An event arriving on a quiet stream is read at once; one
   * following another within this pause waits at most this long (next to a 200 ms batch window).
   */
  lingerMs?: number;
  /** Events read, in stream order. */
  onItems(items: StreamItem[]): void;
  /** Events were or may have been lost before the next onItems. */
  onLoss(): void;
}

type Entry = [id: string, fields: string[]];
type PipelineResult = [Error | null, unknown][] | null;
interface ReadResult {
  entries: Entry[];
  positionPresent: boolean | null;
  info: StreamInfo | null | undefined;
}

export class StreamReader {
  /** Resolves once the reader has its starting position (connect clients after this). */
  readonly ready: Promise<void>;
  private pos: ReaderPosition = { id: ZERO_ID, anchored: false, addedBefore: null };
  private running = true;
  private readonly loop: Promise<void>;
  private markReady!: () => void;
  /** The previous read returned entries: read the next with XRANGE, without blocking. */
  private flowing = false;
  /** The lean connection's failures in a row, and when to try it again after them (range()). */
  private rangeFailures = 0;
  private rangeRetryAt = 0;
  /**
   * `rangeReads`: of `reads`, the non-blocking ones made while events flowed; `rangeFallbacks`: of
   * those, the ones the lean connection failed and `redis` made instead.
   */
  readonly counters = { reads: 0, rangeReads: 0, rangeFallbacks: 0, entries: 0, losses: 0, errors: 0 };

  constructor(private readonly opts: StreamReaderOptions) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.loop = this.run();
  }

  position(): ReaderPosition {
    return { ...this.pos };
  }

  async stop(): Promise<void> {
    this.running = false;
    this.opts.range?.close();
    this.opts.redis.disconnect();
    await this.loop.catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        this.pos = await this.positionAtEnd();
        break;
      } catch (err) {
        await this.pause(err, 'event stream position unknown; retrying');
      }
    }
    this.markReady();
    while (this.running) {
      try {
        const read = await this.readOnce();
        // A full page means more is waiting: read on at once.
        if (read > 0 && read < (this.opts.count ?? 500) && (this.opts.lingerMs ?? 0) > 0) await new Promise((r) => setTimeout(r, this.opts.lingerMs));
      } catch (err) {
        await this.pause(err, 'event stream read failed; retrying');
      }
    }
  }

  /** One read (blocking while the stream is quiet); the number of new entries it returned. */
  private async readOnce(): Promise<number> {
    const from = this.pos;
    const read = from.anchored && this.flowing ? await this.readFlowing(from.id) : await this.readBlocking(from);
    if (!this.running || !read) return 0;
    this.counters.reads++;
    const { entries, positionPresent, info } = read;
    const verdict = judgeRead({ position: from, entries: entries.length, positionPresent, info });
    if (verdict.lost) {
      this.counters.losses++;
      this.opts.log.warn({ after: from.id }, 'events may have been lost from the stream; clients reconcile');
      this.opts.onLoss();
    }
    if (verdict.reposition) this.pos = await this.positionAfterLoss(from);
    this.flowing = entries.length > 0;
    if (entries.length === 0) return 0;

    const items: StreamItem[] = [];
    for (const [id, fields] of entries) {
      const item = itemFromEntry(id, fields);
      if (item) items.push(item);
      else this.opts.log.warn({ id }, 'malformed event entry skipped');
    }
    this.pos = { id: entries[entries.length - 1][0], anchored: true };
    this.counters.entries += entries.length;
    if (items.length > 0) this.opts.onItems(items);
    return entries.length;
  }

  /**
   * While events flow: the entries after `id`, and whether `id` is still in the stream, in one
   * command (XRANGE's start is inclusive, so `id` comes first when it is still there).
   */
  private async readFlowing(id: StreamId): Promise<ReadResult> {
    const count = this.opts.count ?? 500;
    this.counters.rangeReads++;
    const got = await this.range(id, count + 1);
    const positionPresent = got.length > 0 && got[0][0] === id;
    return { entries: positionPresent ? got.slice(1) : got.slice(0, count), positionPresent, info: undefined };
  }

  /**
   * XRANGE from `id` on (inclusive), on the lean connection when there is one and it works. After
   * it fails, reads go through ioredis for 1 s, then 2, 4, ... up to 30 s before it is tried again
   * (a connection it cannot open is not retried 40 times a second); a success resets that.
   */
  private async range(id: StreamId, count: number): Promise<Entry[]> {
    const { range, redis, streamKey } = this.opts;
    if (range && Date.now() >= this.rangeRetryAt) {
      try {
        const got = await range.xrange(streamKey, id, count);
        this.rangeFailures = 0;
        return got;
      } catch (err) {
        if (!this.running) return [];
        this.rangeFailures++;
        this.rangeRetryAt = Date.now() + Math.min(30_000, 1000 * 2 ** Math.min(this.rangeFailures - 1, 5));
        const msg = 'lean stream read failed; reading through ioredis for a while';
        if (this.rangeFailures === 1) this.opts.log.warn({ err: (err as Error).message }, msg);
        else this.opts.log.debug({ err: (err as Error).message, failures: this.rangeFailures }, msg);
      }
    }
    if (range) this.counters.rangeFallbacks++;
    return (await redis.xrange(streamKey, id, '+', 'COUNT', count)) as Entry[];
  }

  /** XREAD, blocking while the stream is quiet, pipelined with what judging the read needs. */
  private async readBlocking(from: ReaderPosition): Promise<ReadResult | null> {
    const { redis, streamKey } = this.opts;
    const pipe = redis.pipeline();
    pipe.xread('COUNT', this.opts.count ?? 500, 'BLOCK', this.opts.blockMs ?? 5000, 'STREAMS', streamKey, from.id);
    if (from.anchored) pipe.xrange(streamKey, from.id, from.id);
    else pipe.exists(streamKey).xinfo('STREAM', streamKey);
    const res = (await pipe.exec()) as PipelineResult;
    if (!this.running || !res) return null;
    const [readErr, readReply] = res[0];
    if (readErr) throw readErr;
    const streams = readReply as [string, Entry[]][] | null;
    const entries = streams?.[0]?.[1] ?? [];
    const observed = { position: from, entries: entries.length, positionPresent: from.anchored ? ((res[1][1] as Entry[] | null)?.length ?? 0) > 0 : null };
    return { entries, positionPresent: observed.positionPresent, info: needsInfo(observed) ? streamInfoFrom(res[1], res[2]) : undefined };
  }

  /**
   * A new position after a loss noticed with nothing read. Events may have arrived since the read:
   * they are after `from` (trimming removes the oldest entries first), so the reader keeps reading
   * after `from`, now unanchored, with the stream's entries-added counter minus the entries still in
   * it as the baseline (what is in the stream now is unread). Only a stream that restarted behind
   * `from` (or is gone) is followed from its end instead. Jumping to the end here would skip the
   * events added between the read and this call.
   */
  private async positionAfterLoss(from: ReaderPosition): Promise<ReaderPosition> {
    const res = (await this.opts.redis.multi().exists(this.opts.streamKey).xinfo('STREAM', this.opts.streamKey).exec()) as PipelineResult;
    if (!res) throw new Error('position read was discarded');
    const info = streamInfoFrom(res[0], res[1]);
    if (!info || compareIds(info.lastGeneratedId, from.id) < 0) return this.positionAtEnd();
    return { id: from.id, anchored: false, addedBefore: info.entriesAdded === null ? null : info.entriesAdded - info.length };
  }

  /** The stream's last entry, or its end when it has none (read atomically with its counters). */
  private async positionAtEnd(): Promise<ReaderPosition> {
    const res = (await this.opts.redis
      .multi()
      .xrevrange(this.opts.streamKey, '+', '-', 'COUNT', 1)
      .exists(this.opts.streamKey)
      .xinfo('STREAM', this.opts.streamKey)
      .exec()) as PipelineResult;
    if (!res) throw new Error('position read was discarded');
    if (res[0][0]) throw res[0][0];
    const last = res[0][1] as Entry[];
    if (last.length > 0) return { id: last[0][0], anchored: true };
    const info = streamInfoFrom(res[1], res[2]);
    return { id: info?.lastGeneratedId ?? ZERO_ID, anchored: false, addedBefore: info?.entriesAdded ?? 0 };
  }

  private async pause(err: unknown, msg: string): Promise<void> {
    if (!this.running) return;
    this.counters.errors++;
    this.opts.log.warn({ err: (err as Error).message }, msg);
    await new Promise((r) => setTimeout(r, 500));
  }
}
