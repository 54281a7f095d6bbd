/**
 * Global set-up of the response-check layer (run by global-setup.ts, beside the services): the
 * OpenAPI document is built once for the whole run (not once per test file) and written with the
 * listed error codes to a JSON artefact that each test file reads on its first checked response (see
 * openapi-check.ts and openapi-hook.ts).
 *
 * Building it means importing the whole route tree (4-6 s of a run's start on this machine), so the
 * artefact is kept in node_modules/.cache/squid-openapi-checks-<hash>, keyed by the contents of
 * everything the document is made from (src/, jobs/, db/, this folder's document builder and the
 * lock file): a run after a change to tests only reuses it, any change to those files rebuilds it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    openapiChecks: string;
  }
}

const repoRoot = new URL('../../', import.meta.url).pathname;
const cacheRoot = path.join(repoRoot, 'node_modules/.cache');
const PREFIX = 'squid-openapi-checks-';

/** Hash of every file under the document's source folders, with their paths. */
function sourceHash(): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(path.relative(repoRoot, p)).update('\0').update(readFileSync(p)).update('\0');
    }
  };
  for (const d of ['src', 'jobs', 'db']) walk(path.join(repoRoot, d));
  for (const f of ['package-lock.json', 'test/support/openapi-document.ts', 'test/support/openapi-check.ts']) h.update(f).update(readFileSync(path.join(repoRoot, f)));
  return h.digest('hex').slice(0, 16);
}

/** Drop artefacts of other sources not used for an hour (a concurrent run may still read a recent one). */
function pruneOld(keep: string) {
  for (const name of readdirSync(cacheRoot)) {
    const p = path.join(cacheRoot, name);
    if (!name.startsWith(PREFIX) || p === keep) continue;
    try {
      if (Date.now() - statSync(p).mtimeMs > 3600_000) rmSync(p, { recursive: true, force: true });
    } catch {
      /* removed by another run */
    }
  }
}

export default async function setup(project: TestProject): Promise<void> {
  if (process.env.SQUID_OPENAPI_CHECK === 'off') {
    project.provide('openapiChecks', '');
    return;
  }
  const dir = path.join(cacheRoot, `${PREFIX}${sourceHash()}`);
  const file = path.join(dir, 'checks.json');
  if (!existsSync(file)) {
    // Imported here, not at the top: the route tree is loaded only when the artefact is missing.
    const { writeCheckArtefact } = await import('./openapi-document.js');
    const partial = `${dir}.partial-${process.pid}`;
    writeCheckArtefact(partial);
    mkdirSync(dir, { recursive: true });
    renameSync(path.join(partial, 'checks.json'), file); // atomic: a concurrent run reads all or nothing
    rmSync(partial, { recursive: true, force: true });
  }
  pruneOld(dir);
  project.provide('openapiChecks', file);
}
