import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.js';
import { BackendUnavailableError, isPlainError } from './errors/backend.js';

export type Db = Kysely<Database>;

// int8 (count(*), bigint sums) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric as number: scores and shares are reported as JSON numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export function createDb(databaseUrl: string, opts: { max?: number; applicationName?: string } = {}): Db {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'squid-news',
    connectionTimeoutMillis: 5000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process.
  pool.on('error', () => undefined);
  // Nor a checked-out one (pg-pool removes its idle listener while a client is lent out, e.g. inside
  // a transaction): its next query fails (503) and the pool drops it on release (not queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: translatingPool(pool) }) });
}

/**
 * The one place pg's connection failures become a typed error. pg raises a failed connect, a
 * connection lost mid-query and a query on a closed client as plain `Error`s without a code
 * (server-side errors are `DatabaseError`s with their SQLSTATE; socket errors carry Node's code):
 * those become BackendUnavailableError, which the HTTP layer answers with 503 and workers put back.
 */
function translatingPool(pool: pg.Pool): PostgresPool {
  const translate = (err: unknown) => (isPlainError(err) && !(err instanceof pg.DatabaseError) ? new BackendUnavailableError('postgres', err) : err);
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw err instanceof BackendUnavailableError ? err : new BackendUnavailableError('postgres', err);
      }
      return {
        query(sqlOrCursor: any, parameters?: ReadonlyArray<unknown>): any {
          // Cursors (streamed reads) report their own errors through read().
          if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor);
          return client.query(sqlOrCursor, parameters as unknown[]).catch((err: unknown) => {
            throw translate(err);
          });
        },
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
