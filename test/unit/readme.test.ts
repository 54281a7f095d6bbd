import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { withConfigTable, withErrorTable } from '../../scripts/lib/config-table.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const configPage = read('docs/configuration.md');
const errorsPage = read('docs/errors.md');

it("docs/configuration.md's table lists every variable of src/platform/config.ts (run `npm run docs:config`)", () => {
  expect(configPage).toBe(withConfigTable(configPage));
});

it("docs/errors.md's error-code table lists every code of src/platform/errors/codes.ts (run `npm run docs:config`)", async () => {
  expect(errorsPage).toBe(await withErrorTable(errorsPage));
});

it('README keeps the two-command quick start', () => {
  expect(readme).toContain('npm install && npm start');
  expect(readme).toContain('npm test');
});
