/** Rewrite the generated tables: docs/configuration.md (environment variables) and docs/errors.md (error codes).   npm run docs:config */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable, withErrorTable } from './lib/config-table.js';

const configPage = new URL('../docs/configuration.md', import.meta.url);
const errorsPage = new URL('../docs/errors.md', import.meta.url);
writeFileSync(configPage, withConfigTable(readFileSync(configPage, 'utf8')));
writeFileSync(errorsPage, await withErrorTable(readFileSync(errorsPage, 'utf8')));
console.log('docs/configuration.md and docs/errors.md tables updated');
