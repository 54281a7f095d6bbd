// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * payments.delivered_at: when the paid resource (the report, the sponsored post) was delivered for
 * this payment. A synchronous settlement that timed out records the payment undelivered; the
 * payer's retry with the same PAYMENT-SIGNATURE then delivers it exactly once (the UPDATE ...
 * WHERE delivered_at IS NULL is the guard). Rows from before this column were all delivered with
 * their insert except those of timed-out settlements, which cannot be told apart afterwards: all
 * are marked delivered at their creation (a retry of one of them stays a replay, as it was).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN delivered_at timestamptz`.execute(db);
  await sql`UPDATE payments SET delivered_at = created_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments DROP COLUMN delivered_at`.execute(db);
}
