/**
 * The bounded pool that runs picture work (sharp/libvips) in the web process. sharp runs each
 * operation on a thread of libuv's pool (UV_THREADPOOL_SIZE, 4 by default), the pool that DNS
 * lookups, file system calls and async crypto also wait for; unbounded, a few large uploads take
 * every thread and every core and the process's other requests wait behind them. Here at most
 * `concurrency` operations run at once (each with one libvips thread, see process.ts), always
 * leaving at least one libuv thread free, and at most `queueMax` wait; beyond that the upload is
 * refused at once (PicturePoolFull: 503 with Retry-After) instead of queueing without bound.
 */
export class PicturePoolFull extends Error {
  constructor(readonly retryAfterS: number) {
    super('picture pool full');
  }
}

/** libuv's threadpool size in this process (fixed when the pool first starts). */
function libuvThreads(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 1024) : 4;
}

export class PicturePool {
  /** Operations run at once: as configured, but never every libuv thread (at least 1). */
  readonly concurrency: number;
  private readonly queueMax: number;
  private readonly retryAfterS: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(opts: { concurrency: number; queueMax: number; retryAfterS: number }, threads = libuvThreads()) {
    this.concurrency = Math.max(1, Math.min(opts.concurrency, threads - 1));
    this.queueMax = opts.queueMax;
    this.retryAfterS = opts.retryAfterS;
  }

  /** Operations running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Run `work` when a slot is free; PicturePoolFull when `queueMax` are already waiting. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else if (this.waiting.length >= this.queueMax) throw new PicturePoolFull(this.retryAfterS);
    // The slot is handed over by the finishing operation (running stays counted).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
