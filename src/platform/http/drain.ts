/**
 * Graceful close of the web process's HTTP server on SIGTERM.
 *
 * `server.close()` closes the listening socket at once. A connection whose TCP handshake the
 * kernel has completed but which the busy process has not accepted yet is still in the listen
 * queue, and closing the listener resets it: under load the client that connected just before the
 * signal got ECONNRESET (the SIGTERM drill caught one connected 7 ms before it). Here:
 * - the listener stays open for `listenGraceMs` (a few turns of the event loop accept what was
 *   queued; what connects meanwhile is served too), then closes, refusing new connections;
 * - a request in progress finishes, then its connection is closed; one that arrives while
 *   draining is served with `Connection: close`;
 * - a keep-alive connection between requests is closed (it has served at least one request);
 * - a connection that has sent nothing yet gets `graceMs` to send its request, which is served.
 */
import type http from 'node:http';
import type net from 'node:net';

interface SocketState {
  acceptedAt: number;
  served: boolean;
  active: number;
}

interface ConnectionDrainer {
  /** Close connections as above, and stop listening; resolves once every connection has ended. */
  drain(graceMs: number, listenGraceMs?: number): Promise<void>;
}

export function connectionDrainer(server: http.Server): ConnectionDrainer {
  const sockets = new Map<net.Socket, SocketState>();
  let draining = false;
  let grace = 0;

  const sweep = () => {
    const now = Date.now();
    for (const [socket, st] of sockets) {
      if (st.active > 0) continue;
      if (!st.served && now - st.acceptedAt < grace) continue;
      // A response still in Node's buffer is flushed first (end), and the socket destroyed at the
      // next sweep once it has gone out.
      if (socket.writableLength > 0) socket.end();
      else socket.destroy();
    }
  };

  server.on('connection', (socket: net.Socket) => {
    sockets.set(socket, { acceptedAt: Date.now(), served: false, active: 0 });
    socket.once('close', () => sockets.delete(socket));
  });
  // Before the app's handler, which may answer at once (the header must be set before it).
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const st = sockets.get(req.socket);
    if (st) {
      st.served = true;
      st.active++;
    }
    if (draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      if (st) st.active--;
      if (draining) sweep();
    });
  });

  return {
    async drain(graceMs, listenGraceMs = 100) {
      draining = true;
      grace = graceMs;
      sweep();
      const timer = setInterval(sweep, 100);
      try {
        await new Promise((r) => setTimeout(r, listenGraceMs));
        // Stop listening; called back once every connection has ended.
        await new Promise<void>((resolve) => server.close(() => resolve()));
      } finally {
        clearInterval(timer);
      }
    },
  };
}
