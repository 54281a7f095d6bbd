/**
 * The Procfile is the one list of process types. The dev launcher and the end-to-end tests start
 * what it names, so a process type added there is started everywhere.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ProcessType {
  name: string;
  /** The entry file of `tsx <file>`, relative to the repository root. */
  entry: string;
}

/** Every `name: tsx <file>` line of the Procfile, in order. Other command shapes are an error. */
export function readProcfile(file = path.join(repoRoot, 'Procfile')): ProcessType[] {
  const types: ProcessType[] = [];
  for (const [i, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-z][a-z0-9_-]*):\s*tsx\s+(\S+\.ts)$/.exec(line);
    if (!m) throw new Error(`${file}:${i + 1}: expected "name: tsx path/to/file.ts", got "${line}"`);
    types.push({ name: m[1], entry: m[2] });
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
