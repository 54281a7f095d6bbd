/**
 * `npm run build` from code (the production-process test and bench:processes): runs the package's
 * `build` script through a shell, as npm would, with this process's node first on PATH so that a
 * build under another Node version (scripts/node-matrix.sh) uses that version.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './procfile.js';

export async function buildDist(): Promise<{ ms: number }> {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const started = Date.now();
  const PATH = [path.join(repoRoot, 'node_modules/.bin'), path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
  const child = spawn('/bin/sh', ['-c', pkg.scripts.build], { cwd: repoRoot, env: { ...process.env, PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`npm run build failed (exit ${code}):\n${out.slice(-4000)}`);
  return { ms: Date.now() - started };
}

/** The environment a platform gives a process: PATH (this node first), HOME, and the config vars. */
export function platformEnv(vars: Record<string, string>): Record<string, string> {
  return {
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: process.env.HOME ?? '/tmp',
    ...vars,
  };
}
