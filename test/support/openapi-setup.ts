/**
 * Global set-up of the response-check layer (run by global-setup.ts, beside the services): the OpenAPI document is built once for the whole run
 * (not once per test file) and written with the listed error codes to a JSON artefact that each
 * test file reads on its first checked response (see openapi-check.ts and openapi-hook.ts).
 */
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    openapiChecks: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.SQUID_OPENAPI_CHECK === 'off') {
    project.provide('openapiChecks', '');
    return undefined;
  }
  const dir = new URL(`../../node_modules/.cache/squid-openapi-checks-${process.pid}`, import.meta.url).pathname;
  // Imported here, not at the top: the route tree is loaded only when the layer is on.
  const { writeCheckArtefact } = await import('./openapi-document.js');
  project.provide('openapiChecks', writeCheckArtefact(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
