/**
 * Global set-up of the response-check layer: the OpenAPI document is built and every response
 * validator compiled once for the whole run (not once per test file), into a module the workers
 * import (see openapi-check.ts and openapi-hook.ts).
 */
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { precompileResponseChecks } from './openapi-check.js';

declare module 'vitest' {
  export interface ProvidedContext {
    openapiChecks: string;
  }
}

export default function setup(project: TestProject) {
  // Under node_modules so the generated module resolves ajv's runtime helpers from the project.
  const dir = new URL(`../../node_modules/.cache/squid-openapi-checks-${process.pid}`, import.meta.url).pathname;
  project.provide('openapiChecks', process.env.SQUID_OPENAPI_CHECK === 'off' ? '' : precompileResponseChecks(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
