// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Covering indexes for cold feed pages and their counts: a filtered page or `count`
 * the cache has not seen becomes an index-only scan of one index instead of a walk that checks each
 * candidate row on the heap. Each replaces the index with the same key (same orders, so every plan
 * that used the old one can use the new one) and carries the columns the feed filters on:
 *  - (status, published_at DESC, id DESC): time windows (since/until, top `t`) and the `new` sort of
 *    the approved feed; counts within a window check tags, symbols, addresses and source in the index;
 *  - (status, vote_count DESC, id DESC): the `top` sort; a top-in-window page walks it and checks
 *    the window (published_at, or created_at for submitted) and filters without the heap;
 *  - (lower(source), published_at DESC, id DESC): a source's articles; `source` itself is included
 *    because PostgreSQL offers an index-only scan only when the plain column is in the index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX articles_feed_window_idx ON articles (status, published_at DESC, id DESC) INCLUDE (vote_count, tags, token_symbols, token_addresses, source)`.execute(db);
  await sql`DROP INDEX articles_status_published_idx`.execute(db);
  await sql`
    CREATE INDEX articles_feed_top_idx ON articles (status, vote_count DESC, id DESC)
    INCLUDE (published_at, created_at, tags, token_symbols, token_addresses, source)`.execute(db);
  await sql`DROP INDEX articles_status_top_idx`.execute(db);
  await sql`
    CREATE INDEX articles_feed_source_idx ON articles (lower(source), published_at DESC, id DESC)
    INCLUDE (source, status, vote_count, tags, token_symbols, token_addresses)`.execute(db);
  await sql`DROP INDEX articles_source_published_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX articles_source_published_idx ON articles (lower(source), published_at DESC, id DESC)`.execute(db);
  await sql`DROP INDEX articles_feed_source_idx`.execute(db);
  await sql`CREATE INDEX articles_status_top_idx ON articles (status, vote_count DESC, id DESC)`.execute(db);
  await sql`DROP INDEX articles_feed_top_idx`.execute(db);
  await sql`CREATE INDEX articles_status_published_idx ON articles (status, published_at DESC, id DESC)`.execute(db);
  await sql`DROP INDEX articles_feed_window_idx`.execute(db);
}
