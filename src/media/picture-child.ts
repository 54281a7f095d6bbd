/**
 * The picture process: decodes, inspects and re-encodes uploads (sharp/libvips) for a web process,
 * which forks it (picture-worker.ts) and talks to it over the IPC channel.
 *
 * It lowers its own CPU priority (PICTURE_NICE, by default the lowest: nice 19) for every thread, so every thread started
 * afterwards (libuv's pool, libvips's workers) inherits it: on a busy machine the
 * kernel gives the web process's request handling, the database and the other processes the cores
 * first, and a burst of expensive uploads slows only other uploads. It exits when the web process
 * goes away (the channel disconnects).
 */
import { lowerPriority } from '../platform/process-priority.js';
import type { PictureExt } from './profile-pictures.js';

// PICTURE_NICE, passed by the web process (picture-worker.ts).
const nice = Number(process.env.PICTURE_CHILD_NICE ?? 19);
lowerPriority(nice);
// Loaded after the priority change, and the threads sharp starts on load lowered too.
const { inspectPicture, PictureRejected, reencodePicture } = await import('./process.js');
lowerPriority(nice);

interface Request {
  id: number;
  op: 'inspect' | 'reencode';
  bytes: Uint8Array;
  ext: PictureExt;
}

async function handle(req: Request) {
  try {
    const value = req.op === 'inspect' ? await inspectPicture(req.bytes, req.ext) : await reencodePicture(req.bytes, req.ext);
    process.send?.({ id: req.id, ok: true, value });
  } catch (err) {
    process.send?.({ id: req.id, ok: false, rejected: err instanceof PictureRejected, message: (err as Error).message });
  }
}

process.on('message', (req: Request) => void handle(req));
process.on('disconnect', () => process.exit(0));
