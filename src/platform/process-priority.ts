/**
 * Lowers this process to the lowest CPU priority (nice 19). On Linux a priority belongs to a
 * thread, and Node has started threads of its own before any code runs (libuv's pool, V8's
 * workers): every thread is lowered, so every thread started later inherits the lowest priority
 * too. Elsewhere the process's priority is set. Never throws: where it is not permitted the process
 * runs at the priority it had.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

export function lowerPriority(): void {
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: the process as a whole.
  }
  for (const tid of threads) {
    try {
      os.setPriority(tid, os.constants.priority.PRIORITY_LOW);
    } catch {
      // Not permitted, or the thread has ended.
    }
  }
}
