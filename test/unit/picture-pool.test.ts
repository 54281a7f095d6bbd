import { describe, expect, it } from 'vitest';
import { PicturePool, PicturePoolFull } from '../../src/media/picture-pool.js';
import { pictureSizeProblem } from '../../src/media/rules/picture-limits.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('PicturePool', () => {
  it('runs at most `concurrency` at once, queues up to queueMax in order, refuses the next with its Retry-After', async () => {
    const pool = new PicturePool({ concurrency: 2, queueMax: 1, retryAfterS: 7 });
    const gates = [gate(), gate(), gate()];
    const order: number[] = [];
    const runs = gates.map((g, i) =>
      pool.run(async () => {
        order.push(i);
        await g.opened;
        return i;
      }),
    );
    await Promise.resolve();
    expect(pool.load).toEqual({ running: 2, waiting: 1 });
    await expect(pool.run(async () => 9)).rejects.toEqual(new PicturePoolFull(7));
    expect(order).toEqual([0, 1]);
    gates[0].open();
    expect(await runs[0]).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2]);
    expect(pool.load).toEqual({ running: 2, waiting: 0 });
    gates[1].open();
    gates[2].open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(pool.load).toEqual({ running: 0, waiting: 0 });
  });

  it('a failing operation frees its slot', async () => {
    const pool = new PicturePool({ concurrency: 1, queueMax: 0, retryAfterS: 1 });
    await expect(pool.run(async () => Promise.reject(new Error('bad')))).rejects.toThrow('bad');
    expect(await pool.run(async () => 1)).toBe(1);
  });
});

describe('pictureSizeProblem', () => {
  it('caps GIF frames and pixels over all frames, still pictures by their pixels', () => {
    expect(pictureSizeProblem({ width: 1000, height: 1000, frames: 40 }, true)).toMatch(/16 million pixels/);
    expect(pictureSizeProblem({ width: 10, height: 10, frames: 51 }, true)).toMatch(/50 frames/);
    expect(pictureSizeProblem({ width: 400, height: 400, frames: 50 }, true)).toBeNull();
    expect(pictureSizeProblem({ width: 4000, height: 4000, frames: 1 }, true)).toBeNull();
    expect(pictureSizeProblem({ width: 4001, height: 4000, frames: 1 }, true)).toMatch(/16 million/);
    expect(pictureSizeProblem({ width: 8000, height: 6000, frames: 1 }, false)).toBeNull();
    expect(pictureSizeProblem({ width: 8000, height: 6251, frames: 1 }, false)).toMatch(/50 million/);
  });
});
