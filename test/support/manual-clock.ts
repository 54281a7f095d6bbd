import type { Clock } from '../../src/platform/clock.js';

/** A clock that stands still until the test moves it (`advance`): time-based rules without waiting. */
export class ManualClock implements Clock {
  constructor(private ms = Date.now()) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
