import { expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

const app = useTestApp(undefined, { PUBLIC_BASE_URL: 'https://news.example.org', TRUSTED_ORIGIN: 'https://news.example.org', WS_PORT: '8443' });

const LINKS = {
  docs: 'https://news.example.org/api/v1/docs',
  openapi: 'https://news.example.org/api/v1/openapi.json',
  api_key_signup: 'https://news.example.org/api-key/signup/',
  stream: 'wss://news.example.org:8443/ws/news/',
  sse: 'https://news.example.org:8443/sse/news/',
  llms_txt: 'https://news.example.org/llms.txt',
  x402_discovery: 'https://news.example.org/.well-known/x402',
  mcp: 'https://news.example.org/mcp',
};

it('GET / answers JSON with the links for Accept: application/json, */* or no Accept', async () => {
  for (const accept of ['application/json', '*/*', undefined]) {
    const r = await app.http.get('/', accept ? { accept } : {});
    expect(r.status, String(accept)).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('vary')).toMatch(/Accept/);
    expect(r.body).toEqual({ name: 'Squid News API', api_version: '1.2', api_root: 'https://news.example.org/api/v1', links: LINKS });
  }
});

it('GET / answers an HTML index for a browser, linking every entry (same-host links relative)', async () => {
  const r = await app.http.get('/', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  for (const href of ['/api/v1/docs', '/api/v1/openapi.json', '/api-key/signup/', '/llms.txt', '/.well-known/x402', '/mcp', LINKS.stream, LINKS.sse]) {
    expect(r.text).toContain(`href="${href}"`);
  }
  expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
  // Not a route for writes.
  expect((await app.http.post('/', {})).status).toBe(405);
});

it('GET /api/v1/docs serves the reference page with its own CSP; the renderer and its start-up script come from this host', async () => {
  const r = await app.http.get('/api/v1/docs');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  const csp = r.headers.get('content-security-policy')!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/https?:|unsafe-eval/);
  const scripts = [...r.text.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]);
  expect(scripts).toEqual(['/api/v1/docs/redoc.js', '/api/v1/docs/init.js']);
  // No inline script: every <script> has a src.
  expect(r.text.match(/<script(?![^>]*src=)[^>]*>/g)).toBeNull();
  const bundle = await app.http.get(scripts[0]);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(bundle.text.length).toBeGreaterThan(500_000);
  expect(bundle.text).not.toContain('cdn.redoc.ly');
  const init = await app.http.get(scripts[1]);
  expect(init.text).toContain('Redoc.init("/api/v1/openapi.json"');
  // Other pages keep the API's strict policy.
  expect((await app.http.get('/api/v1/openapi.json')).headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
});

it('the docs and the document are not metered against the daily quota', async () => {
  const doc = (await app.http.get('/api/v1/openapi.json')).body;
  for (const p of ['/api/v1/docs', '/api/v1/docs/redoc.js', '/api/v1/docs/init.js']) {
    expect(doc.paths[p].get.responses['429'], p).toBeUndefined();
  }
});

it('GET /favicon.ico answers 204 with a long cache, so browsers stop asking (and the log has no 404s)', async () => {
  const r = await app.http.get('/favicon.ico');
  expect(r.status).toBe(204);
  expect(r.headers.get('cache-control')).toBe('public, max-age=604800, immutable');
  expect(r.text).toBe('');
  expect((await app.http.request('HEAD', '/favicon.ico')).status).toBe(204);
});
