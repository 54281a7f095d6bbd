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
