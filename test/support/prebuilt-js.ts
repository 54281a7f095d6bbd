/**
 * The service's sources as plain JavaScript for the processes tests start (the drills' stack, a web or
 * ws process of an integration test): a tsx start costs a process about twice the CPU of a plain node
 * start of the same code (the loader's resolve and load hooks for every module), and the drills start
 * dozens. The global set-up transforms every .ts file of src/, jobs/, db/ and scripts/ once per run with
 * esbuild, the transformer tsx itself uses (file by file, no bundling: the same JavaScript tsx runs), into
 * node_modules/.cache/squid-test-js-<pid>/ with the repository's layout (non-TypeScript files beside
 * them are copied: the editor's assets, data files), so paths relative to a module still resolve and
 * packages resolve from the repository's node_modules. A process starts from there only when its
 * starter asks for it (`prebuilt` in scripts/lib/harness.ts); the launcher tier starts `npm start`,
 * the Procfile's processes and the CLI as users do.
 */
import { copyFileSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { PREBUILT_JS_ENV } from '../../scripts/lib/harness.js';

const SOURCE_DIRS = ['src', 'jobs', 'db', 'scripts'];

function listFiles(root: string, dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) listFiles(root, rel, out);
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** Transform the sources into a fresh directory, set PREBUILT_JS_ENV for the test workers, and return the clean-up. */
export async function buildPrebuiltJs(repoRoot: string, log: (l: string) => void): Promise<() => void> {
  const t0 = Date.now();
  const outDir = path.join(repoRoot, 'node_modules/.cache', `squid-test-js-${process.pid}`);
  rmSync(outDir, { recursive: true, force: true });
  const files = SOURCE_DIRS.flatMap((d) => listFiles(repoRoot, d));
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    absWorkingDir: repoRoot,
    entryPoints: sources,
    outdir: outDir,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    // The node running the tests runs this JavaScript: its own version keeps what it supports as
    // written (a lower target drops the `with { type: 'json' }` of a JSON import, which node then refuses).
    target: `node${process.versions.node}`,
    logLevel: 'silent',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    mkdirSync(path.dirname(path.join(outDir, f)), { recursive: true });
    copyFileSync(path.join(repoRoot, f), path.join(outDir, f));
  }
  // ES modules: the directory lies under node_modules, where Node would not look further up for the
  // repository's package.json.
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module' }));
  // Its real path: node runs a main module from there (symbolic links resolved), and a script that
  // runs its main only when it is the entry compares its own URL with process.argv[1].
  process.env[PREBUILT_JS_ENV] = realpathSync(outDir);
  log(`${sources.length} sources as JavaScript for the processes tests start, in ${Date.now() - t0} ms`);
  return () => {
    delete process.env[PREBUILT_JS_ENV];
    rmSync(outDir, { recursive: true, force: true });
  };
}
