// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log.attrs: what subscriptions filter on (webhooks and filtered streams), captured
 * when the event is recorded, in its transaction: the article's tags, token_addresses and
 * token_symbols as they were at that commit, `{tags: [...], token_addresses: [...], token_symbols: [...]}`.
 * NULL for events that are not about an article (news.tsunami: a wire item) and for internal events.
 * Clients never receive it as such: the relay passes it to the stream beside the event, where the
 * ws process filters connections by it, and webhook fan-out matches endpoint filters against it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE event_log ADD COLUMN attrs json`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE event_log DROP COLUMN IF EXISTS attrs`.execute(db);
}
