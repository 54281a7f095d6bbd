/** Rewrite README.md's configuration table from src/config.ts.   npm run docs:config */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable } from './lib/config-table.js';

const file = new URL('../README.md', import.meta.url);
writeFileSync(file, withConfigTable(readFileSync(file, 'utf8')));
console.log('README.md configuration table updated');
