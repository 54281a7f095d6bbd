/**
 * A watchdog for the dev launcher's PostgreSQL and Redis. The app processes exit by themselves when
 * the launcher dies (EXIT_WITH_PARENT: their stdin pipe closes), but the database servers do not.
 * This tiny shell process holds a pipe from the launcher; when the pipe reaches end-of-file without
 * the launcher having said `done` (it was SIGKILLed or crashed), it waits for the app processes to
 * go, then stops Redis (SIGTERM) and PostgreSQL (SIGINT, fast shutdown). A watchdog killed as well
 * is covered by the next launcher, which reaps stale servers through their pid files.
 */
import { spawn } from 'node:child_process';

const script = `
apps=""; stop=""
while read -r cmd pid sig; do
  case "$cmd" in
    app) apps="$apps $pid" ;;
    server) stop="$pid:$sig $stop" ;;
    done) exit 0 ;;
  esac
done
i=0
while [ $i -lt 150 ]; do
  left=""
  for p in $apps; do kill -0 "$p" 2>/dev/null && left=1; done
  [ -z "$left" ] && break
  sleep 0.1; i=$((i + 1))
done
for s in $stop; do kill -s "\${s#*:}" "\${s%%:*}" 2>/dev/null; done
exit 0
`;

export interface Watchdog {
  pid: number;
  /** An app process: the watchdog waits (up to 15 s) for these to exit before stopping servers. */
  app(pid: number): void;
  /** A server to stop with `signal` if the launcher dies. Servers are stopped newest first. */
  server(pid: number, signal: 'INT' | 'TERM'): void;
  /** The launcher is shutting down by itself: the watchdog exits without touching anything. */
  disarm(): void;
}

export function startWatchdog(): Watchdog {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.on('error', () => undefined);
  child.unref();
  const send = (line: string) => {
    if (child.stdin.writable) child.stdin.write(`${line}\n`);
  };
  return {
    pid: child.pid!,
    app: (pid) => send(`app ${pid}`),
    server: (pid, signal) => send(`server ${pid} ${signal}`),
    disarm() {
      send('done');
      child.stdin.end();
    },
  };
}
