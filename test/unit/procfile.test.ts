import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { readProcfile, repoRoot } from '../../scripts/lib/procfile.js';

function procfile(text: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'procfile-'));
  try {
    writeFileSync(path.join(dir, 'Procfile'), text);
    return readProcfile(path.join(dir, 'Procfile'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('maps a built command to its TypeScript source, keeps a tsx command, and refuses other shapes', () => {
  expect(procfile('# comment\nweb: node dist/src/bin/web.js\nrelease: tsx scripts/migrate.ts\n')).toEqual([
    { name: 'web', entry: 'src/bin/web.ts', command: 'node dist/src/bin/web.js', built: 'dist/src/bin/web.js' },
    { name: 'release', entry: 'scripts/migrate.ts', command: 'tsx scripts/migrate.ts', built: null },
  ]);
  expect(procfile('web: node --enable-source-maps dist/src/bin/web.js')[0]).toMatchObject({ entry: 'src/bin/web.ts', built: 'dist/src/bin/web.js' });
  expect(() => procfile('web: node src/bin/web.js')).toThrow(/Procfile:1: expected/);
  expect(() => procfile('web: npm start')).toThrow(/Procfile:1: expected/);
});

it('every Procfile line runs the build of an existing source that tsconfig.build.json compiles', () => {
  const build = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.build.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { files: string[] };
  const types = readProcfile();
  expect(types.map((t) => t.name)).toEqual(['release', 'web', 'worker', 'ws', 'clock']);
  for (const t of types) {
    expect(t.built, t.name).toBe(`dist/${t.entry.replace(/\.ts$/, '.js')}`);
    expect(existsSync(path.join(repoRoot, t.entry)), t.entry).toBe(true);
    expect(build.files, t.name).toContain(t.entry);
  }
});
