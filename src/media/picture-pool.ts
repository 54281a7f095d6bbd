/**
 * The bound on picture work: at most `concurrency` operations run at once in the picture process
 * (picture-child.ts), each with one libvips thread, and at most `queueMax` wait; beyond that the
 * upload is refused at once (PicturePoolFull: 503 with Retry-After) instead of queueing without
 * bound. The work runs at the lowest CPU priority, so the bound is about memory (a decoded upload
 * holds its frames) and the wait an uploader sees, not about the web process's cores.
 */
export class PicturePoolFull extends Error {
  constructor(readonly retryAfterS: number) {
    super('picture pool full');
  }
}

export class PicturePool {
  /** Operations run at once. */
  readonly concurrency: number;
  private readonly queueMax: number;
  private readonly retryAfterS: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(opts: { concurrency: number; queueMax: number; retryAfterS: number }) {
    this.concurrency = Math.max(1, opts.concurrency);
    this.queueMax = opts.queueMax;
    this.retryAfterS = opts.retryAfterS;
  }

  /** Operations running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Every slot runs and `queueMax` wait: the next operation would be refused. */
  get full(): boolean {
    return this.running >= this.concurrency && this.waiting.length >= this.queueMax;
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
