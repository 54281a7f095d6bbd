/**
 * A tiny HTTP client for tests: serves a Koa app on an ephemeral loopback port and sends real
 * requests with fetch (no mocks of HTTP).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { koaListener } from '../../src/platform/http/listener.js';

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export default function request(app: Koa) {
  const server = http.createServer(koaListener(app));
  const ready = new Promise<string>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
  server.unref();

  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const base = await ready;
    const h: Record<string, string> = { ...headers };
    let payload: string | Buffer | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (typeof body === 'string' || Buffer.isBuffer(body)) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(base + path, { method, headers: h, body: payload as never, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  return {
    base: ready,
    server,
    request: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => send(method, path, body, headers),
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => send('POST', path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => send('PUT', path, body, headers),
    delete: (path: string, body?: unknown, headers?: Record<string, string>) => send('DELETE', path, body, headers),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
