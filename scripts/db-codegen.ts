/** Regenerate db/schema.ts from the migrated database at DATABASE_URL (run after adding a migration). */
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db.js';
import { migrateToLatest } from '../src/migrate.js';
import { generateSchemaSource } from './lib/schema-codegen.js';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, { max: 1 });
try {
  await migrateToLatest(db);
  writeFileSync(new URL('../db/schema.ts', import.meta.url), await generateSchemaSource(db));
  console.log('wrote db/schema.ts');
} finally {
  await db.destroy();
}
