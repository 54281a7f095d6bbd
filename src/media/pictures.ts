/**
 * Picture work for uploads, as the profile feature uses it: the header inspection and the
 * re-encoding run in the picture process (picture-worker.ts, lowest CPU priority), the re-encoding
 * within the pool's bound (picture-pool.ts).
 */
import { PicturePool } from './picture-pool.js';
import type { ProcessedPicture } from './picture-types.js';
import { PictureWorker } from './picture-worker.js';
import type { PictureExt } from './rules/media-name.js';
import type { PictureSize } from './rules/picture-limits.js';

export class Pictures {
  readonly pool: PicturePool;
  readonly worker: PictureWorker;

  constructor(opts: { concurrency: number; queueMax: number; retryAfterS: number; timeoutMs: number; nice: number }) {
    this.pool = new PicturePool(opts);
    // One libuv thread per operation that may run at once, plus one for the child's own I/O.
    this.worker = new PictureWorker({ timeoutMs: opts.timeoutMs, threads: this.pool.concurrency + 1, nice: opts.nice });
  }

  /** Width, frame height and frame count from the header; no frame is decoded. */
  inspect(bytes: Uint8Array, ext: PictureExt): Promise<PictureSize> {
    return this.worker.inspect(bytes, ext);
  }

  /** Decoded, stripped of everything but the pixels, scaled down and re-encoded, within the pool's bound. */
  reencode(bytes: Uint8Array, ext: PictureExt): Promise<ProcessedPicture> {
    return this.pool.run(() => this.worker.reencode(bytes, ext));
  }
}
