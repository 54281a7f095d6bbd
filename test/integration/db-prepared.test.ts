import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, executePrepared } from '../../src/platform/db.js';
import { BackendUnavailableError } from '../../src/platform/errors/backend.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(() => deps.close());

/** The prepared statements of the connection `trx` runs on, by their text. */
async function preparedOnConnection(trx: TestDeps['db']): Promise<string[]> {
  const r = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx);
  return r.rows.map((x) => x.statement);
}

describe('executePrepared', () => {
  it('runs a statement as a named prepared statement on its connection, parsed once, with each call its own values', async () => {
    const query = (n: number) => sql<{ doubled: number; label: string }>`SELECT ${n}::int * 2 AS doubled, 'prepared-test-' || ${n}::text AS label`;
    const text = query(0).compile(deps.db).sql;
    await deps.db.transaction().execute(async (trx) => {
      expect(await preparedOnConnection(trx)).not.toContain(text);
      const first = await executePrepared(trx, query(3));
      expect(first.rows).toEqual([{ doubled: 6, label: 'prepared-test-3' }]);
      expect((await preparedOnConnection(trx)).filter((s) => s === text)).toHaveLength(1);
      // The same text again on the same connection: no second statement, the new values answered.
      const second = await executePrepared(trx, query(21));
      expect(second.rows).toEqual([{ doubled: 42, label: 'prepared-test-21' }]);
      expect((await preparedOnConnection(trx)).filter((s) => s === text)).toHaveLength(1);
      // A plain execution of the same text on that connection still works (unnamed).
      expect((await query(5).execute(trx)).rows).toEqual([{ doubled: 10, label: 'prepared-test-5' }]);
    });
  });

  it('takes query builders too, and a statement PostgreSQL refuses keeps its SQLSTATE (no backend error)', async () => {
    const r = await executePrepared(
      deps.db,
      deps.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')),
    );
    expect(typeof r.rows[0].n).toBe('number');
    const err = await executePrepared(deps.db, sql`SELECT 1 / ${0}::int AS x`).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(BackendUnavailableError);
    expect((err as { code?: string }).code).toBe('22012');
    // The connection is still usable for the same statement afterwards.
    expect((await executePrepared(deps.db, sql<{ x: number }>`SELECT 1 / ${1}::int AS x`)).rows).toEqual([{ x: 1 }]);
  });

  it('runs it unnamed on a pool made with prepared: false (DB_PREPARED_STATEMENTS=false, for poolers that do not track them)', async () => {
    const unnamed = createDb(deps.config.DATABASE_URL, { max: 1, prepared: false });
    try {
      const query = sql<{ x: string }>`SELECT 'unnamed-test' || ${1}::text AS x`;
      await unnamed.transaction().execute(async (trx) => {
        expect((await executePrepared(trx, query)).rows).toEqual([{ x: 'unnamed-test1' }]);
        expect(await preparedOnConnection(trx)).not.toContain(query.compile(trx).sql);
      });
    } finally {
      await unnamed.destroy();
    }
  });
});
