/**
 * A demo wire source with two ingested items (one of them is the wire sighting of a demo article,
 * so a provenance check of that URL shows a tsunami receipt). The source is disabled (its host is
 * an example domain, so its fetches would only fail); enable it with `npm run cli -- wire enable <id>`.
 */
import { normalizeUrl } from '../../src/platform/url/normalize.js';
import type { SeedPart } from './types.js';

const SOURCE = { name: 'Chain Wire (demo)', url: 'https://chain-wire.example/feed.xml' };

const items = [
  { url: 'https://defi-daily.example/uniswap-fee-switch-vote?utm_source=wire', title: 'Uniswap governance turns on the protocol fee switch', hoursAgo: 30 },
  { url: 'https://chain-wire.example/ethereum-devnet-next', title: 'Ethereum core developers schedule the next devnet', hoursAgo: 3 },
];

export const wire: SeedPart = {
  name: 'wire items',
  async run(ctx) {
    const source = await ctx.trx.insertInto('wire_sources').values({ name: SOURCE.name, url: SOURCE.url, enabled: false }).returning('id').executeTakeFirstOrThrow();
    for (const it of items) {
      const at = ctx.ago(it.hoursAgo);
      const row = await ctx.trx
        .insertInto('wire_items')
        .values({
          url: it.url,
          normalized_url: normalizeUrl(it.url)!,
          title: it.title,
          source_id: source.id,
          source_name: SOURCE.name,
          source_url: SOURCE.url,
          publisher_claimed_at: new Date(at.getTime() - 600_000),
          ingested_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await ctx.trx
        .insertInto('wire_receipts')
        .values({
          wire_item_id: row.id,
          source_id: source.id,
          source_name: SOURCE.name,
          source_url: SOURCE.url,
          item_url: it.url,
          publisher_claimed_at: new Date(at.getTime() - 600_000),
          ingested_at: at,
        })
        .execute();
    }
    return items.length;
  },
};
