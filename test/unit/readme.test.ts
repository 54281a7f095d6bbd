import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { withConfigTable, withErrorTable } from '../../scripts/lib/config-table.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

it("README's configuration table lists every variable of src/platform/config.ts (run `npm run docs:config`)", () => {
  expect(readme).toBe(withConfigTable(readme));
});

it("README's error-code table lists every code of src/platform/errors/codes.ts (run `npm run docs:config`)", async () => {
  expect(readme).toBe(await withErrorTable(readme));
});

it('README keeps the two-command quick start', () => {
  expect(readme).toContain('npm install && npm start');
  expect(readme).toContain('npm test');
});
