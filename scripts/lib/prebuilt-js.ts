/**
 * The service's process entries as plain JavaScript for the processes tests start (the drills' stack,
 * a web or ws process of an integration test, the tools beside `npm start`): a tsx start costs a
 * process several times the CPU of a plain node start of the same code (the loader's resolve and load
 * hooks for every module), and Node's own loader, given one file per module, resolves, reads and
 * compiles each of the 1,000-2,400 ES modules a process imports (most of them viem's, kysely's and
 * zod's) on its own. The test run's global set-up calls buildPrebuiltJs once, into
 * node_modules/.cache/squid-test-js-<pid>/ with the repository's layout:
 *
 * 1. The non-TypeScript files of src/, jobs/, db/ and scripts/ are copied (the editor's assets, data
 *    files), so paths relative to a module still resolve.
 * 2. Each process entry (processEntries) is bundled with esbuild into one file at its place: the
 *    service's modules and the packages that are ES modules, tree-shaken. CommonJS packages and the
 *    CommonJS files that an ES module of a package imports stay outside, imported by their resolved
 *    path, so each is loaded once by Node as before (one instance shared with the other CommonJS
 *    packages that require it). Every bundled module keeps its own `import.meta.url` (and dirname,
 *    filename): the URL its own file has in that layout (for a source file; its .js name) or under
 *    node_modules, so assets, data files, forked children and "am I the main module" checks resolve
 *    as they would unbundled. Package resolution follows Node's (the import and node conditions,
 *    `main` only).
 *
 * A process starts from there only when its starter asks for it (`prebuilt` in scripts/lib/harness.ts)
 * and its entry is one of those bundled (otherwise it runs through tsx); the launcher tier starts
 * `npm start`, the Procfile's processes and the CLI through tsx as users do, and
 * `procfile-built.test.ts` the Procfile's commands on `npm run build`'s output.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { PREBUILT_JS_ENV } from './harness.js';
import { readProcfile } from './procfile.js';

const SOURCE_DIRS = ['src', 'jobs', 'db', 'scripts'];

/**
 * The entries that tests start as processes from the prebuilt copy: the Procfile's (web, worker, ws,
 * clock, the release phase), the tools a test runs beside `npm start` (test/support/second-terminal.ts)
 * and the picture process the web process forks (beside its parent's module, as unbundled).
 */
function processEntries(repoRoot: string): string[] {
  const procfile = readProcfile(path.join(repoRoot, 'Procfile')).map((t) => t.entry);
  return [...new Set([...procfile, 'scripts/cli.ts', 'scripts/seed-demo.ts', 'src/media/picture-child.ts'])];
}

function listFiles(root: string, dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) listFiles(root, rel, out);
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** Bundle the process entries into a fresh directory, set PREBUILT_JS_ENV for the test workers, and return the clean-up. */
export async function buildPrebuiltJs(repoRoot: string, log: (l: string) => void): Promise<() => void> {
  const t0 = Date.now();
  const root = realpathSync(repoRoot);
  const cacheDir = path.join(root, 'node_modules/.cache');
  mkdirSync(cacheDir, { recursive: true });
  // Its real path: node runs a main module from there (symbolic links resolved), and a script that
  // runs its main only when it is the entry compares its own URL with process.argv[1].
  const outDir = path.join(realpathSync(cacheDir), `squid-test-js-${process.pid}`);
  rmSync(outDir, { recursive: true, force: true });
  const files = SOURCE_DIRS.flatMap((d) => listFiles(root, d));
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    mkdirSync(path.dirname(path.join(outDir, f)), { recursive: true });
    copyFileSync(path.join(root, f), path.join(outDir, f));
  }
  // ES modules: the directory lies under node_modules, where Node would not look further up for the
  // repository's package.json.
  writeFileSync(path.join(outDir, 'package.json'), JSON.stringify({ type: 'module' }));

  const entries = processEntries(root);
  const bundled = await build({
    absWorkingDir: root,
    outdir: outDir,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    // The node running the tests runs this JavaScript: its own version keeps what it supports as
    // written (a lower target drops the `with { type: 'json' }` of a JSON import, which node then refuses).
    target: `node${process.versions.node}`,
    logLevel: 'silent',
    entryPoints: entries,
    bundle: true,
    // Node's resolution: no `module` condition or field (esbuild's defaults), which Node ignores.
    conditions: [],
    mainFields: ['main'],
    plugins: [nodeLoading(root, outDir)],
    write: false,
  });
  for (const f of bundled.outputFiles) {
    // A CommonJS file inside a bundle would get esbuild's require shim, which throws: nodeLoading keeps them out.
    if (f.text.includes('__require(')) throw new Error(`${path.relative(outDir, f.path)}: bundled CommonJS code calls require()`);
    mkdirSync(path.dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.contents);
  }
  process.env[PREBUILT_JS_ENV] = outDir;
  log(`${entries.length} entries bundled as JavaScript for the processes tests start, in ${Date.now() - t0} ms`);
  return () => {
    delete process.env[PREBUILT_JS_ENV];
    rmSync(outDir, { recursive: true, force: true });
  };
}

/**
 * What keeps a bundle's behaviour Node's own: CommonJS stays with Node's loader (imported by its
 * resolved path), and each module's `import.meta` names the module's own file.
 */
function nodeLoading(root: string, outDir: string): Plugin {
  const scopeTypes = new Map<string, string>();
  /** The `type` of the package scope `dir` lies in (the nearest package.json). */
  const scopeType = (dir: string): string => {
    let t = scopeTypes.get(dir);
    if (t === undefined) {
      const pj = path.join(dir, 'package.json');
      if (existsSync(pj)) t = (JSON.parse(readFileSync(pj, 'utf8')) as { type?: string }).type ?? 'commonjs';
      else t = path.dirname(dir) === dir ? 'commonjs' : scopeType(path.dirname(dir));
      scopeTypes.set(dir, t);
    }
    return t;
  };
  const isCommonJs = (file: string) => file.endsWith('.cjs') || (file.endsWith('.js') && scopeType(path.dirname(file)) !== 'module');
  const inPackage = (file: string) => file.includes(`${path.sep}node_modules${path.sep}`);
  /** The file whose URL a module's `import.meta.url` is: its place in the output layout, or the package's file. */
  const runsAs = (file: string) => (inPackage(file) ? file : path.join(outDir, path.relative(root, file)).replace(/\.ts$/, '.js'));

  return {
    name: 'node-loading',
    setup(b) {
      const resolved = new Map<string, Promise<{ path?: string; external?: boolean } | undefined>>();
      // Bare specifiers: a package that resolves to CommonJS (or not at all: an optional dependency) stays outside.
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.pluginData === 'inner' || args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        const key = `${args.resolveDir}\0${args.path}`;
        let r = resolved.get(key);
        if (!r) {
          r = b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' }).then((res) => {
            if (res.errors.length > 0 || res.external) return { external: true };
            if (inPackage(res.path) && isCommonJs(res.path)) return { external: true, path: res.path };
            return { path: res.path };
          });
          resolved.set(key, r);
        }
        return r;
      });
      // Relative imports inside a package: an ES module that wraps the package's CommonJS files imports them.
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (!inPackage(args.importer)) return undefined;
        const file = path.resolve(args.resolveDir, args.path);
        return isCommonJs(file) && existsSync(file) ? { external: true, path: file } : undefined;
      });
      b.onLoad({ filter: /\.(ts|js|mjs)$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const file = runsAs(args.path);
        const contents = text
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
          .replaceAll('import.meta.filename', JSON.stringify(file));
        return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}
