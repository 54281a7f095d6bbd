import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { PictureRejected } from '../../src/media/picture-types.js';
import { PictureWorker, PictureWorkerDown } from '../../src/media/picture-worker.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(ok: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the picture process', () => {
  const worker = new PictureWorker({ timeoutMs: 20_000, threads: 2 });
  afterAll(() => worker.close());

  it('re-encodes in a child process that runs at the lowest CPU priority', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
      .png()
      .withMetadata({ exif: { IFD0: { Artist: 'someone' } } })
      .toBuffer();
    expect(await worker.inspect(png, 'png')).toEqual({ width: 40, height: 30, frames: 1 });
    const out = await worker.reencode(png, 'png');
    expect(Buffer.isBuffer(out.bytes) && Buffer.isBuffer(out.sha256)).toBe(true);
    expect([out.width, out.height, out.type]).toEqual([40, 30, 'image/png']);
    expect((await sharp(out.bytes).metadata()).exif).toBeUndefined();
    const pid = worker.pid!;
    expect(pid).not.toBe(process.pid);
    expect(os.getPriority(pid)).toBe(19);
    // On Linux a priority is a thread's: every thread of the child, libvips's workers too.
    if (existsSync(`/proc/${pid}/task`)) {
      const nice = readdirSync(`/proc/${pid}/task`).map((tid) => {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
      expect(nice.length).toBeGreaterThan(1);
      expect(new Set(nice)).toEqual(new Set([19]));
    }
  });

  it('a file that does not decode is PictureRejected, and the process stays up', async () => {
    const pid = worker.pid!;
    const truncated = (
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3c3' } })
        .png()
        .toBuffer()
    ).subarray(0, 60);
    await expect(worker.reencode(truncated, 'png')).rejects.toBeInstanceOf(PictureRejected);
    expect(worker.pid).toBe(pid);
  });

  it('an operation over the time limit kills the process; the next one forks a new one', async () => {
    const slow = new PictureWorker({ timeoutMs: 1, threads: 2 });
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#33c' } })
      .png()
      .toBuffer();
    const first = slow.reencode(png, 'png');
    const pid = slow.pid!;
    await expect(first).rejects.toBeInstanceOf(PictureWorkerDown);
    await until(() => !alive(pid));
    await expect(slow.reencode(png, 'png')).rejects.toBeInstanceOf(PictureWorkerDown);
    expect(slow.pid).toBeUndefined();
  });

  it('close() stops it', async () => {
    const pid = worker.pid!;
    worker.close();
    await until(() => !alive(pid));
  });
});
