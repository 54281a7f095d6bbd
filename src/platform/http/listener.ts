import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type Koa from 'koa';

/**
 * The app as a Node request listener. Koa's callback returns a promise that never rejects (Koa
 * catches every error and answers it through ctx.onerror), so it is deliberately not awaited.
 */
export function koaListener(app: Koa): RequestListener {
  const handle = app.callback();
  return (req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res);
  };
}

/**
 * An async request handler as a Node request listener (for small local servers in tests, drills and
 * scripts): an error it throws ends the response with a 500 instead of an unhandled rejection.
 */
export function asyncListener(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): RequestListener {
  return (req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  };
}
