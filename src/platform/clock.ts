/**
 * The time source of caches and windows that compare timestamps (ms since epoch). Production code
 * uses `systemClock`; tests pass a clock they move forward instead of waiting for real time to pass.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
