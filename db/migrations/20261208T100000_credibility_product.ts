// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * credibility_product(float8 ORDER BY ...): the product of its inputs, multiplied in the given
 * order starting from 1, as src/credibility/rules/vote-weight.ts multiplies a vote's factors; the
 * per-vote update's statement (src/credibility/vote-queries.ts) computes a weight with it, so the
 * two agree to the last bit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE AGGREGATE credibility_product(float8) (SFUNC = float8mul, STYPE = float8, INITCOND = '1')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP AGGREGATE IF EXISTS credibility_product(float8)`.execute(db);
}
