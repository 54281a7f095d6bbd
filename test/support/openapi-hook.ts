/**
 * Vitest setup file: every response the service sends to a test through fetch (the request helper,
 * browser-less end-to-end tests against child processes, SDK clients) is checked against the OpenAPI
 * document (see openapi-check.ts). A response is the service's when it carries X-Request-Id, which
 * the web app sets on every response and the local fake servers do not. A mismatch fails the test
 * that received it (afterEach), without changing what the test's own code sees.
 *
 * SQUID_OPENAPI_CHECK=off disables the layer; =report writes mismatches to the file named by
 * SQUID_OPENAPI_REPORT instead of failing (used to survey the document's gaps).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, afterEach, inject } from 'vitest';
import { responseChecker } from './openapi-check.js';

const mode = process.env.SQUID_OPENAPI_CHECK ?? 'fail';
// The run's document (openapi-setup.ts), read on this file's first checked response.
const checksFile = mode === 'off' ? '' : inject('openapiChecks');
if (mode !== 'off' && !checksFile) throw new Error('the response-check layer is on but the global set-up wrote no document (test/support/openapi-setup.ts)');
// Kept on globalThis: with `isolate: false` (vitest.config.ts) a worker runs many files in one module
// graph and re-runs this setup file for each, while fetch is wrapped once (below); the wrapper and
// every file's afterEach must share one list, or a mismatch found by the first file's wrapper would
// never be reported by a later file.
interface HookState {
  problems: string[];
  pending: Set<Promise<void>>;
}
const shared = globalThis as { __squidOpenApiHook?: HookState };
const state: HookState = (shared.__squidOpenApiHook ??= { problems: [], pending: new Set() });
const { problems, pending } = state;
const fetchState = globalThis as { __squidOpenApiFetch?: boolean };

/** Whether a response is the service's and one the document covers. */
function inScope(method: string, path: string, headers: Headers): boolean {
  if (!headers.has('x-request-id')) return false;
  if (method === 'HEAD' || method === 'OPTIONS') return false;
  // Streams are never finished by the test; their handshakes are checked elsewhere.
  if (/text\/event-stream/i.test(headers.get('content-type') ?? '')) return false;
  // /metrics (Prometheus text) and the staff queue dashboard are operator surfaces, outside the API
  // document; /api/v1/__... are routes a test mounts for itself (probes of the shared middleware);
  // /mcp speaks the Model Context Protocol (JSON-RPC messages), which its own specification describes.
  return !(path.startsWith('/metrics') || path.startsWith('/admin/queues') || path.startsWith('/api/v1/__') || path === '/mcp' || path.startsWith('/mcp/'));
}

/** For helpers that do not use fetch (raw node:http in the fuzz tests): check one finished response. */
export function checkRawResponse(method: string, pathAndQuery: string, status: number, rawHeaders: Record<string, string | string[] | undefined>, text: string): void {
  if (!checksFile) return;
  const headers = new Headers();
  for (const [k, v] of Object.entries(rawHeaders)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const path = pathAndQuery.split('?')[0];
  if (!inScope(method.toUpperCase(), path, headers)) return;
  try {
    problems.push(...responseChecker(checksFile).check({ method: method.toUpperCase(), path, status, headers, text }));
  } catch (err) {
    problems.push(`response check crashed: ${(err as Error).message}`);
  }
}

function inspect(method: string, url: string, res: Response): void {
  const path = new URL(url).pathname;
  if (!inScope(method, path, res.headers)) return;
  const copy = res.clone();
  const p = copy
    .text()
    .then((text) => {
      const found = responseChecker(checksFile).check({ method, path, status: res.status, headers: res.headers, text });
      problems.push(...found);
    })
    .catch(() => {
      /* the test aborted the body; nothing to check */
    })
    .finally(() => pending.delete(p));
  pending.add(p);
}

if (checksFile && !fetchState.__squidOpenApiFetch) {
  fetchState.__squidOpenApiFetch = true;
  const original = globalThis.fetch;
  globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const res = await original(input, init);
    try {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      const url = input instanceof Request ? input.url : String(input);
      inspect(method, url, res);
    } catch (err) {
      problems.push(`response check crashed: ${(err as Error).message}`);
    }
    return res;
  } as typeof fetch;
}

async function flush(): Promise<void> {
  // Bodies still streaming when the test ends are checked when they finish (bounded wait).
  const deadline = Date.now() + 2000;
  while (pending.size && Date.now() < deadline) await Promise.race([Promise.allSettled([...pending]), new Promise((r) => setTimeout(r, 50))]);
  if (!problems.length) return;
  const found = problems.splice(0);
  if (mode === 'report') {
    if (process.env.SQUID_OPENAPI_REPORT) appendFileSync(process.env.SQUID_OPENAPI_REPORT, found.map((l) => l + '\n').join(''));
    return;
  }
  throw new Error(`responses the OpenAPI document does not describe (fix the route's responses or the code):\n- ${[...new Set(found)].join('\n- ')}`);
}

afterEach(flush);
afterAll(flush);
