/**
 * Pages a person opens: the interactive API reference at /api/v1/docs and the host-root index.
 *
 * The reference is Redoc's standalone browser bundle, served from the installed npm package
 * (redoc, bundles/redoc.standalone.js) by this process: no CDN, so it works offline. The page loads
 * the bundle and a small start-up script from the same origin, reads /api/v1/openapi.json, and runs
 * under its own Content-Security-Policy (docsCsp): scripts only from 'self' (no inline script, no
 * eval), connections only to 'self', no fonts from elsewhere (the system fonts are used), no framing.
 * Inline styles are allowed because the renderer builds its styles at run time (styled-components),
 * and blob: workers because its search index runs in a worker it creates from a blob.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { esc, HTML_HEAD_START, page } from '../platform/http/html.js';
import { API_PREFIX, API_VERSION } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { faviconRoute } from './favicon-route.js';

const DOCS_PATH = `${API_PREFIX}/docs`;
const BUNDLE_PATH = `${DOCS_PATH}/redoc.js`;
const INIT_PATH = `${DOCS_PATH}/init.js`;

const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The docs page's Content-Security-Policy (given to securityHeaders as its override); undefined elsewhere. */
export function docsCsp(ctx: Context): string | undefined {
  return ctx.path === DOCS_PATH && ctx.status === 200 ? DOCS_CSP : undefined;
}

/** The one outside resource the bundle loads by itself: the sidebar credit's logo. */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

let bundle: string | undefined;
/**
 * The renderer's browser bundle, read once from the installed package. Its sidebar credit loads a
 * logo from Redocly's CDN: that URL is replaced by an empty inline SVG so the page asks nothing of
 * another host (the credit's text and link stay).
 */
function rendererBundle(): string {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8')
    .split(REDOC_LOGO)
    .join(BLANK_SVG);
  return bundle;
}

function docsPage(): string {
  return `${HTML_HEAD_START}
<title>Squid News API reference</title>
</head>
<body>
<noscript>The interactive reference needs JavaScript. The OpenAPI document itself is at <a href="${API_PREFIX}/openapi.json">${API_PREFIX}/openapi.json</a>.</noscript>
<div id="api-reference"></div>
<script src="${BUNDLE_PATH}"></script>
<script src="${INIT_PATH}"></script>
</body>
</html>`;
}

const SYSTEM_FONTS = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const MONO_FONTS = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace";
// The document is read from this origin; fonts are the system's (nothing is fetched elsewhere).
const INIT_SCRIPT = `Redoc.init(${JSON.stringify(`${API_PREFIX}/openapi.json`)}, ${JSON.stringify({
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  hideDownloadButton: false,
  theme: { typography: { fontFamily: SYSTEM_FONTS, headings: { fontFamily: SYSTEM_FONTS }, code: { fontFamily: MONO_FONTS } } },
})}, document.getElementById('api-reference'));\n`;

interface IndexLinks {
  docs: string;
  openapi: string;
  api_key_signup: string;
  stream: string;
  sse: string;
  llms_txt: string;
  x402_discovery: string;
  mcp: string;
}

/** Where a client finds each part of the service, as absolute URLs from the configured public addresses. */
function indexLinks(deps: AppDeps): IndexLinks {
  const base = deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const ws = streamBase(deps);
  return {
    docs: `${base}${DOCS_PATH}`,
    openapi: `${base}${API_PREFIX}/openapi.json`,
    api_key_signup: `${base}/api-key/signup/`,
    stream: `${ws}/ws/news/`,
    sse: `${ws.replace(/^ws/, 'http')}/sse/news/`,
    llms_txt: `${base}/llms.txt`,
    x402_discovery: `${base}/.well-known/x402`,
    mcp: `${base}/mcp`,
  };
}

/** PUBLIC_WS_URL when set, else PUBLIC_BASE_URL's host on WS_PORT (ws:, or wss: behind https). */
function streamBase(deps: AppDeps): string {
  if (deps.config.PUBLIC_WS_URL) return deps.config.PUBLIC_WS_URL.replace(/\/+$/, '');
  const u = new URL(deps.config.PUBLIC_BASE_URL);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.port = String(deps.config.WS_PORT);
  return u.origin.replace(/^http/, 'ws');
}

const linksSchema = z
  .object({
    docs: z.string().meta({ description: 'This interactive API reference (HTML)' }),
    openapi: z.string().meta({ description: 'The OpenAPI 3.1 document' }),
    api_key_signup: z.string().meta({ description: 'Create an API key (HTML form)' }),
    stream: z.string().meta({ description: 'WebSocket stream of article lifecycle events (send Origin: TRUSTED_ORIGIN)' }),
    sse: z.string().meta({ description: 'The same events as Server-Sent Events' }),
    llms_txt: z.string().meta({ description: 'A summary of the API for agents' }),
    x402_discovery: z.string().meta({ description: 'The x402 discovery document: what is for sale and how to pay' }),
    mcp: z.string().meta({ description: 'The Model Context Protocol endpoint (Streamable HTTP)' }),
  })
  .meta({ id: 'IndexLinks' });

const indexSchema = z
  .object({
    name: z.string(),
    api_version: z.string(),
    api_root: z.string().meta({ description: 'The {base_url}: every REST path is under it' }),
    links: linksSchema,
  })
  .meta({ id: 'ServiceIndex' });

const LINK_LABELS: [keyof IndexLinks, string][] = [
  ['docs', 'API reference (interactive)'],
  ['openapi', 'OpenAPI document'],
  ['api_key_signup', 'Get an API key'],
  ['stream', 'Live event stream (WebSocket)'],
  ['sse', 'Live event stream (Server-Sent Events)'],
  ['llms_txt', 'llms.txt (summary for agents)'],
  ['x402_discovery', 'x402 discovery (paid resources)'],
  ['mcp', 'MCP endpoint (for agents)'],
];

function docsPageRoute(): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    summary: 'Interactive API reference (HTML) of this OpenAPI document',
    description: 'Rendered in the browser by Redoc, served from this host (no CDN); works offline. Not metered.',
    tags: ['meta'],
    unmetered: true,
    responses: { 200: { description: 'the reference page', contentType: 'text/html', schema: z.string() } },
    handler(ctx) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = docsPage();
    },
  });
}

function rendererRoute(): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/docs/redoc.js',
    operationId: 'getApiReferenceBundle',
    summary: "The reference page's renderer (Redoc's standalone browser bundle, from the npm package)",
    tags: ['meta'],
    unmetered: true,
    responses: { 200: { description: 'JavaScript', contentType: 'text/javascript', schema: z.string() } },
    handler(ctx) {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = rendererBundle();
    },
  });
}

function initScriptRoute(): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/docs/init.js',
    operationId: 'getApiReferenceInit',
    summary: "The reference page's start-up script (points the renderer at the OpenAPI document)",
    tags: ['meta'],
    unmetered: true,
    responses: { 200: { description: 'JavaScript', contentType: 'text/javascript', schema: z.string() } },
    handler(ctx) {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = INIT_SCRIPT;
    },
  });
}

function indexRoute(deps: AppDeps): RouteDef {
  const publicOrigin = new URL(deps.config.PUBLIC_BASE_URL).origin;
  // Links to this host are relative in the HTML page, so they work whatever address the browser used.
  const sameOrigin = (url: string) => (url.startsWith(`${publicOrigin}/`) ? url.slice(publicOrigin.length) : url);
  return defineRoute({
    method: 'get',
    path: '/',
    mount: 'root',
    operationId: 'getServiceIndex',
    summary: 'Index of the service: links to the docs, the OpenAPI document, API-key signup, the stream, llms.txt and x402 discovery',
    description: 'HTML when the client prefers text/html (a browser); JSON otherwise (Accept: application/json, */*, or none). Vary: Accept.',
    tags: ['meta'],
    responses: {
      200: {
        description: 'the index',
        schema: indexSchema,
        alternatives: { 'text/html': z.string() },
        headers: { Vary: { description: 'Accept', schema: z.string() } },
      },
    },
    handler(ctx) {
      const links = indexLinks(deps);
      ctx.vary('Accept');
      const body = { name: 'Squid News API', api_version: API_VERSION, api_root: `${deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}${API_PREFIX}`, links };
      if (ctx.accepts('json', 'html') === 'html') {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page(
          'Squid News API',
          `<h1>Squid News API</h1>
<p>Crowdsourced crypto and DeFi news with community curation. API version ${esc(API_VERSION)}; REST root <code>${esc(body.api_root)}</code>.</p>
<ul>
${LINK_LABELS.map(([k, label]) => `<li><a href="${esc(sameOrigin(links[k]))}">${esc(label)}</a> <code>${esc(links[k])}</code></li>`).join('\n')}
</ul>`,
        );
        return;
      }
      ctx.body = body;
    },
  });
}

export function docsRoutes(deps: AppDeps): RouteDef[] {
  return [docsPageRoute(), rendererRoute(), initScriptRoute(), indexRoute(deps), faviconRoute()];
}
