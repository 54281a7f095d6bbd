/**
 * A bench's helper processes. `runJsonChild` (the parent's side) runs a script to its end and
 * parses the JSON line it printed last; `onMessage` (an IPC helper's side) handles the parent's
 * commands.
 */
import { startProc } from '../../lib/harness.js';

/** Run `entry` with `args` (stderr passed through to ours) and parse the last line of its stdout. */
export async function runJsonChild<T>(entry: string, args: string[]): Promise<T> {
  const child = startProc('bench child', entry, {}, args, { echo: 'stderr' });
  await child.exited;
  return JSON.parse(child.stdout().trim().split('\n').pop()!) as T;
}

/**
 * A bench child process's message handler. An error in it ends the child loudly (the parent sees
 * the exit) instead of becoming an unhandled rejection the parent waits on forever.
 */
export function onMessage(handler: (msg: any) => Promise<void>): void {
  process.on('message', (msg) => {
    handler(msg).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  });
}
