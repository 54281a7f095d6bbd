/**
 * The OpenAPI document the response checks use, built in-process by the same function that serves
 * /api/v1/openapi.json. This module imports the whole route tree: only the run's global set-up
 * (openapi-setup.ts) and tests about the document itself load it; the per-file check layer
 * (openapi-check.ts, openapi-hook.ts) reads the artefact written here and imports nothing from src/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../../src/platform/config.js';
import { buildOpenApi } from '../../src/platform/http/openapi.js';
import { errorCodes } from '../../src/platform/errors/codes.js';
import { allRoutes } from '../../src/routes.js';
import type { CheckArtefact } from './openapi-check.js';

type Json = any;

/** The document the tests check against, as the service serves it. */
export function buildTestDocument(): Json {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'postgres://doc@127.0.0.1:1/doc',
    REDIS_URL: 'redis://127.0.0.1:1',
    JWT_SECRET: 'document-builder-secret-document-builder-secret',
  });
  // Routes only read their dependencies when a request arrives; `db` is a placeholder object (some
  // middlewares key per-database caches by it at construction).
  return buildOpenApi(allRoutes({ config, db: {} } as never), { publicBaseUrl: config.PUBLIC_BASE_URL });
}

/** Every registered error code with the statuses it may answer (a kind's own status included). */
export function errorCodeStatuses(): Record<string, number[]> {
  return Object.fromEntries(
    Object.entries(errorCodes).map(([code, spec]) => [code, [spec.status, ...Object.values((spec as { statusByKind?: Record<string, number> }).statusByKind ?? {})]]),
  );
}

/** The document and the listed error codes, as the check layer takes them. */
function buildCheckArtefact(): CheckArtefact {
  return { doc: buildTestDocument(), errorCodes: errorCodeStatuses() };
}

/** Write the run's artefact (once, in the global set-up) and return its file. */
export function writeCheckArtefact(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/checks.json`;
  writeFileSync(file, JSON.stringify(buildCheckArtefact()));
  return file;
}
