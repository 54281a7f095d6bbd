/**
 * The service's version numbers: package.json `version` is the service version, which is also the
 * OpenAPI document's info.version and the MCP server's serverInfo.version; the API (contract)
 * version is separate, and its major is the path's version segment (docs/api-decisions.md: Versions).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, buildOpenApi } from '../../src/platform/http/openapi.js';
import { API_VERSION, SERVICE_VERSION } from '../../src/platform/version.js';
import { MCP_SERVER_INFO } from '../../src/mcp/server.js';

const json = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

describe('versions', () => {
  it('package.json, its lock file, OpenAPI info.version and MCP serverInfo.version are one service version', () => {
    const pkg = json('package.json') as { version: string };
    const lock = json('package-lock.json') as { version: string; packages: Record<string, { version?: string }> };
    expect(SERVICE_VERSION).toBe(pkg.version);
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages[''].version).toBe(pkg.version);
    const doc = buildOpenApi([], { publicBaseUrl: 'https://x.example/api/v1' }) as unknown as { info: { version: string }; 'x-api-version': string };
    expect(doc.info.version).toBe(SERVICE_VERSION);
    expect(MCP_SERVER_INFO.version).toBe(SERVICE_VERSION);
  });

  it('the API version is the contract version; its major is the path segment', () => {
    const doc = buildOpenApi([], { publicBaseUrl: 'https://x.example/api/v1' }) as unknown as { 'x-api-version': string };
    expect(doc['x-api-version']).toBe(API_VERSION);
    expect(API_PREFIX).toBe(`/api/v${API_VERSION.split('.')[0]}`);
  });
});
