/**
 * A local "news site" on 127.0.0.1 for page-title tests: real HTTP, canned pages.
 *   /article?title=...   HTML with og:title (and a different <title>); with `description` and
 *                        `published`, an og:description and an article:published_time
 *   /plain-title         HTML with only <title>
 *   /slow?ms=...         HTML after a delay
 *   /text                text/plain
 *   /no-title            HTML without any title
 *   /missing             404
 *   /broken              500
 *   /redirect?to=...     302 to `to`
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  base: string;
  port: number;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startPageServer(host = '127.0.0.1'): Promise<PageServer> {
  const hits = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    switch (u.pathname) {
      case '/article': {
        const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
        const t = u.searchParams.get('title') ?? 'Default Story';
        const d = u.searchParams.get('description');
        const p = u.searchParams.get('published');
        const meta = `${d ? `<meta property="og:description" content="${attr(d)}">` : ''}${p ? `<meta property="article:published_time" content="${attr(p)}">` : ''}`;
        return html(`<!doctype html><html><head><title>Site name | ${t}</title><meta property="og:title" content="${attr(t)}">${meta}</head><body><h1>x</h1></body></html>`);
      }
      case '/plain-title':
        return html(`<html><head><title>\n  Only   the &lt;title&gt; &amp; nothing else \n</title></head></html>`);
      case '/slow':
        setTimeout(
          () => html(`<html><head><meta property="og:title" content="${u.searchParams.get('title') ?? 'Slow story'}"></head></html>`),
          Number(u.searchParams.get('ms') ?? 2000),
        );
        return;
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('<title>not html</title>');
      case '/no-title':
        return html('<html><body>no title here</body></html>');
      case '/broken':
        res.writeHead(500, { 'content-type': 'text/html' });
        return res.end('oops');
      case '/redirect':
        res.writeHead(302, { location: u.searchParams.get('to')! });
        return res.end();
      default:
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<title>Not found</title>');
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://${host}:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
