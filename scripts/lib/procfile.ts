/**
 * The Procfile is the one list of process types. The platform runs its commands as written (plain
 * `node` on the JavaScript that `npm run build` emits under dist/); the dev launcher, the drills and
 * the end-to-end tests start the same process types from their TypeScript sources with tsx, so a
 * process type added there is started everywhere.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where `npm run build` writes the JavaScript (tsconfig.build.json's outDir). */
const DIST_DIR = 'dist';

interface ProcessType {
  name: string;
  /** The TypeScript source of the entry, relative to the repository root (what tsx runs in development). */
  entry: string;
  /** The command exactly as the Procfile has it (what the platform runs, through a shell). */
  command: string;
  /** The built JavaScript entry the command runs (relative to the repository root), if it runs one. */
  built: string | null;
}

/**
 * Every process type of the Procfile, in order. Accepted command shapes: `node [flags] dist/<path>.js`
 * (production; the source is `<path>.ts`) and `tsx <path>.ts` (a process type not built yet).
 */
export function readProcfile(file = path.join(repoRoot, 'Procfile')): ProcessType[] {
  const types: ProcessType[] = [];
  for (const [i, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-z][a-z0-9_-]*):\s*(.+)$/.exec(line);
    const command = m?.[2].trim() ?? '';
    const node = new RegExp(`^node(?:\\s+--?[\\w-]+(?:=\\S+)?)*\\s+${DIST_DIR}/(\\S+)\\.js$`).exec(command);
    const tsx = /^tsx\s+(\S+\.ts)$/.exec(command);
    if (!m || (!node && !tsx)) {
      throw new Error(`${file}:${i + 1}: expected "name: node ${DIST_DIR}/path/to/file.js" or "name: tsx path/to/file.ts", got "${line}"`);
    }
    types.push({
      name: m[1],
      entry: node ? `${node[1]}.ts` : tsx![1],
      command,
      built: node ? `${DIST_DIR}/${node[1]}.js` : null,
    });
  }
  return types;
}

/** The long-running process types (everything but the release phase). */
export function serviceTypes(file?: string): ProcessType[] {
  return readProcfile(file).filter((p) => p.name !== 'release');
}

/**
 * How to run a TypeScript entry file as its own OS process: node with tsx's loader. Equivalent to
 * `tsx <file>` without tsx's relay process in between, so signals and exit codes are the child's own.
 */
export function nodeArgs(entry: string): string[] {
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return ['--import', loader, path.resolve(repoRoot, entry)];
}
