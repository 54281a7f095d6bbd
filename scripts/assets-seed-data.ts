/**
 * Write the asset registry's seed (db/data/20261201T110000_assets.json) from the package
 * data and the curated list (src/assets/seed-registry.ts), with the default ambiguous words. The
 * migration that reads it is frozen once it lands, so this is run when that migration is written;
 * later registry changes reach a database through the staff CLI/API, the Token Lists refresh or a
 * new migration with its own data file.
 *   npm run assets:seed-data [-- --out=FILE]
 */
import { writeFileSync } from 'node:fs';
import { DEFAULT_AMBIGUOUS_WORDS } from '../src/assets/rules/word-lists.js';
import { loadSeedRegistry } from '../src/assets/seed-registry.js';

const out = process.argv.find((a) => a.startsWith('--out='))?.slice(6) ?? new URL('../db/data/20261201T110000_assets.json', import.meta.url);
const assets = loadSeedRegistry().map(({ id, symbol, name, aliases, ambiguous, deployments, source }) => ({ id, symbol, name, aliases, ambiguous, deployments, source }));
const ambiguousWords = [...new Set(DEFAULT_AMBIGUOUS_WORDS.map((w) => w.toLowerCase()))].sort();
writeFileSync(out, `${JSON.stringify({ assets, ambiguous_words: ambiguousWords })}\n`);
console.log(`wrote ${assets.length} assets, ${assets.reduce((n, a) => n + a.deployments.length, 0)} deployments, ${ambiguousWords.length} ambiguous words`);
