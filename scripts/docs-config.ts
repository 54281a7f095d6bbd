/** Rewrite README.md's generated tables (configuration, error codes).   npm run docs:config */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable, withErrorTable } from './lib/config-table.js';

const file = new URL('../README.md', import.meta.url);
writeFileSync(file, await withErrorTable(withConfigTable(readFileSync(file, 'utf8'))));
console.log('README.md configuration and error-code tables updated');
