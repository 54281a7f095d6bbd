import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionDrainer } from '../../src/platform/http/drain.js';
import { waitFor } from '../support/wait.js';

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections();
});

/** A server whose `/slow` answers after 150 ms; everything else at once. `seen`: the paths it received. */
async function start(): Promise<{ server: http.Server; port: number; seen: string[]; drain: (graceMs: number, listenGraceMs?: number) => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    seen.push(req.url ?? '');
    const answer = () => res.end(`ok ${req.url}`);
    if (req.url === '/slow') setTimeout(answer, 150);
    else answer();
  });
  servers.push(server);
  const drainer = connectionDrainer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, seen, drain: (g, l) => drainer.drain(g, l) };
}

/** Resolves once the server has accepted `n` connections. */
function accepted(server: http.Server, n: number): Promise<boolean> {
  return waitFor(() => new Promise<boolean>((r) => server.getConnections((_e, count) => r(count === n))), { what: `${n} accepted connection(s)` });
}

/** A raw client socket: what it received, and whether the server reset or ended it. */
async function rawConnect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const state = { data: '', ended: false, error: null as string | null };
  socket.on('data', (d) => (state.data += String(d)));
  socket.on('end', () => (state.ended = true));
  socket.on('error', (e: NodeJS.ErrnoException) => (state.error = e.code ?? e.message));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  return { socket, state, closed, send: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`) };
}

describe('connectionDrainer (web SIGTERM)', () => {
  it('serves a connection accepted before the drain whose request arrives after it, with Connection: close', async () => {
    const { server, port, drain } = await start();
    const c = await rawConnect(port);
    // The server has accepted it; drain before the request head is sent. drain() starts at once
    // (its first sweep runs before it returns), so the request below arrives while draining.
    await accepted(server, 1);
    const drained = drain(1000);
    c.send('/late');
    await c.closed;
    await drained;
    expect(c.state.error).toBeNull();
    expect(c.state.data).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(c.state.data.toLowerCase()).toContain('connection: close');
    expect(c.state.data).toContain('ok /late');
  });

  it('serves a connection still in the listen queue when the drain starts (the process had not accepted it yet)', async () => {
    const { port, drain } = await start();
    const socket = net.connect(port, '127.0.0.1');
    // net.connect starts the TCP handshake on the next tick, which the kernel completes at once on
    // loopback; the drain starts right after, before the event loop has polled the listener.
    const drained = new Promise<void>((resolve, reject) => process.nextTick(() => process.nextTick(() => drain(1000, 100).then(resolve, reject))));
    let data = '';
    let error: string | null = null;
    socket.on('data', (d) => (data += String(d)));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.once('connect', () => socket.write('GET /queued HTTP/1.1\r\nHost: x\r\n\r\n'));
    await new Promise<void>((r) => socket.once('close', () => r()));
    await drained;
    expect(error).toBeNull();
    expect(data).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(data).toContain('ok /queued');
  });

  it('lets a request in progress finish, closes idle keep-alive connections, refuses new ones', async () => {
    const { server, port, seen, drain } = await start();
    const busy = await rawConnect(port);
    const idle = await rawConnect(port);
    idle.send('/first');
    await waitFor(() => idle.state.data.includes('ok /first'), { what: 'the answer to /first' }); // and it is kept alive
    expect(idle.state.data).toContain('ok /first');
    busy.send('/slow');
    await waitFor(() => seen.includes('/slow'), { what: 'the /slow request' });
    const t0 = Date.now();
    const drained = drain(1000, 0);
    await idle.closed;
    expect(Date.now() - t0).toBeLessThan(100); // closed at once, not after the grace
    expect(idle.state.error).toBeNull();
    // No new connection once draining: refused.
    await waitFor(() => !server.listening, { what: 'the listener to close' }); // after listenGraceMs (0 here)
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => resolve('connected'));
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    await busy.closed;
    await drained;
    expect(busy.state.error).toBeNull();
    expect(busy.state.data).toContain('ok /slow');
  });

  it('closes a connection that sends nothing once the grace is over', async () => {
    const { server, port, drain } = await start();
    const silent = await rawConnect(port);
    await accepted(server, 1);
    const t0 = Date.now();
    await drain(300);
    await silent.closed;
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(280);
    expect(took).toBeLessThan(1500);
    expect(silent.state.data).toBe('');
  });
});
