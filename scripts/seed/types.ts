import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

/** What the demo seed parts share: the open transaction, one clock, and the ids of earlier rows by key. */
export interface SeedContext {
  trx: Transaction<Database>;
  now: Date;
  users: Map<string, number>;
  articles: Map<string, number>;
  /** Ago: a timestamp `hours` before now. */
  ago(hours: number): Date;
}

/** One part of the demo data. Parts run in order inside one transaction; each returns rows inserted. */
export interface SeedPart {
  name: string;
  run(ctx: SeedContext): Promise<number>;
}

/** Look up an id inserted by an earlier part; a typo in the data fails loudly. */
export function idOf(map: Map<string, number>, key: string): number {
  const id = map.get(key);
  if (id === undefined) throw new Error(`demo seed: unknown key "${key}"`);
  return id;
}
