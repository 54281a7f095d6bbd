/**
 * Lowers this process's CPU priority (by default to the lowest, nice 19). On Linux a priority belongs to a
 * thread, and Node has started threads of its own before any code runs (libuv's pool, V8's
 * workers): every thread is lowered, so every thread started later inherits the lowest priority
 * too. Elsewhere the process's priority is set. Never throws: where it is not permitted the process
 * runs at the priority it had.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

export function lowerPriority(nice: number = os.constants.priority.PRIORITY_LOW): void {
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: the process as a whole.
  }
  for (const tid of threads) {
    try {
      os.setPriority(tid, nice);
    } catch {
      // Not permitted, or the thread has ended.
    }
  }
}
