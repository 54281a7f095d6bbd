/**
 * Print the live event stream, one JSON event per line on stdout (status on stderr), using the
 * reference client: Origin header, reconnect with backoff and jitter, resume by cursor, re-poll of
 * GET /api/v1/news/ on reconcile.
 *
 *   npx tsx scripts/stream.ts [--url ws://127.0.0.1:8001/ws/news/] [--origin http://127.0.0.1:8000]
 *                             [--api http://127.0.0.1:8000] [--token <access token>] [--cursor <cursor>]
 *                             [--count N]   stop after N events
 */
import { parseArgs } from 'node:util';
import { fetchNewsFeed, NewsStream } from '../src/stream/client.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'ws://127.0.0.1:8001/ws/news/' },
    origin: { type: 'string', default: 'http://127.0.0.1:8000' },
    api: { type: 'string' },
    token: { type: 'string' },
    cursor: { type: 'string' },
    count: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stderr.write('usage: tsx scripts/stream.ts [--url U] [--origin O] [--api BASE] [--token T] [--cursor C] [--count N]\n');
  process.exit(0);
}

const api = values.api ?? values.origin!;
const limit = values.count ? Number(values.count) : Infinity;
let printed = 0;
const note = (msg: string) => process.stderr.write(`[stream] ${msg}\n`);

const stream = new NewsStream({
  url: values.url!,
  origin: values.origin!,
  cursor: values.cursor,
  accessToken: () => values.token,
  onEvents(events) {
    for (const e of events) {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      if (++printed >= limit) void finish(0);
    }
  },
  async repoll(reason) {
    note(`re-polling ${api}/api/v1/news/ (${reason})`);
    try {
      const feed = (await fetchNewsFeed(api)) as { items?: unknown[] };
      note(`feed has ${Array.isArray(feed.items) ? feed.items.length : '?'} items on its first page`);
    } catch (err) {
      note(`re-poll failed: ${(err as Error).message}`);
    }
  },
  onState(state, d) {
    if (state === 'waiting') note(`closed${d?.code ? ` (${d.code}${d.reason ? ` ${d.reason}` : ''})` : ''}; reconnecting in ${d?.delayMs} ms`);
    else note(state);
  },
});

async function finish(code: number) {
  await stream.stop();
  if (stream.cursor) note(`resume with --cursor ${stream.cursor}`);
  process.exit(code);
}

process.once('SIGINT', () => void finish(0));
process.once('SIGTERM', () => void finish(0));
stream.start();
