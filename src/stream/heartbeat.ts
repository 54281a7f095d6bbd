/**
 * Heartbeats (spec Events, rule 3: about every 25 s, best effort). One timer for the whole
 * process: each tick sends `{type: "heartbeat"}` and a protocol ping to every connection, and
 * terminates the ones that did not answer the previous ping, so half-open sockets do not hold a
 * connection slot for long.
 */

interface Beating {
  heartbeat(): 'alive' | 'dead';
}

interface HeartbeatHandle {
  stop(): void;
}

export function startHeartbeat(intervalMs: number, connections: () => Iterable<Beating>): HeartbeatHandle {
  const timer = setInterval(() => {
    for (const c of connections()) c.heartbeat();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
