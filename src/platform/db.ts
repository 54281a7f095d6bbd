import { Kysely, PostgresDialect, type CompiledQuery, type PostgresPool, type PostgresPoolClient, type QueryExecutorProvider, type QueryResult } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.js';
import { BackendUnavailableError, isPlainError } from './errors/backend.js';

export type Db = Kysely<Database>;

// int8 (count(*), bigint sums) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric as number: scores and shares are reported as JSON numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** `prepared: false` runs every statement unnamed, also those executePrepared asks to prepare (DB_PREPARED_STATEMENTS). */
export function createDb(databaseUrl: string, opts: { max?: number; applicationName?: string; prepared?: boolean } = {}): Db {
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
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: translatingPool(pool, opts.prepared ?? true) }) });
}

/**
 * The one place pg's connection failures become a typed error. pg raises a failed connect, a
 * connection lost mid-query and a query on a closed client as plain `Error`s without a code
 * (server-side errors are `DatabaseError`s with their SQLSTATE; socket errors carry Node's code):
 * those become BackendUnavailableError, which the HTTP layer answers with 503 and workers put back.
 */
function translatingPool(pool: pg.Pool, prepared: boolean): PostgresPool {
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
          const name = prepared ? preparedNames.get(sqlOrCursor) : undefined;
          const sent = name ? client.query({ name, text: sqlOrCursor, values: parameters as unknown[] }) : client.query(sqlOrCursor, parameters as unknown[]);
          return sent.catch((err: unknown) => {
            throw translate(err);
          });
        },
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Statements that run as named prepared statements, by their SQL text. A named statement is parsed
 * once per connection (pg keeps the name on its client) and, after PostgreSQL's first five custom
 * plans, runs on its cached generic plan when that costs no more: the hot paths' statements skip
 * planning, which costs as much as executing them (a few index probes). Only statements whose text
 * does not depend on their input are registered (arrays go in as one parameter, never as a list of
 * placeholders), so the set stays small; past MAX_PREPARED texts a statement runs unnamed.
 */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 200;

/** Anything Kysely compiles: a query builder or a `sql` template. */
interface Compilable<R> {
  compile(provider: QueryExecutorProvider): CompiledQuery<R>;
}

/** Execute `query` as a named prepared statement (see preparedNames): for a hot path's statement with a fixed text. */
export function executePrepared<R>(db: Db, query: Compilable<R>): Promise<QueryResult<R>> {
  const compiled = query.compile(db);
  if (!preparedNames.has(compiled.sql) && preparedNames.size < MAX_PREPARED) preparedNames.set(compiled.sql, `squid_${preparedNames.size + 1}`);
  return db.executeQuery(compiled);
}
