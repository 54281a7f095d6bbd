/**
 * Picture type sniffing, and the disk store of the pictures' first era (PROFILE_PICTURES_DIR). The
 * pictures now live in PostgreSQL (src/media/store.ts); ProfilePictureStore is kept for the move
 * from disk (src/media/import-disk.ts reads its files) and as the disk baseline of bench:media.
 *
 * The type is decided by the bytes (file-type's magic-number sniffing), never by the file name or
 * the declared part type; only JPEG, PNG and GIF are kept. Files are named by a random 128-bit id plus
 * the sniffed extension, so names are unguessable, never collide, and can be cached forever.
 * Writes go to a dot-prefixed temporary name in the same directory and are renamed into place, so a
 * reader never sees a half-written picture and a failed write leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { PICTURE_TYPES, type PictureExt } from './rules/media-name.js';

export const PROFILE_PICTURE_MAX_BYTES = 5 * 1024 * 1024;

export { PICTURE_TYPES, type PictureExt } from './rules/media-name.js';

/** Stored file names: 32 hex characters and an allowed extension (nothing else is ever served). */
const PICTURE_FILE_PATTERN = /^[0-9a-f]{32}\.(jpg|png|gif)$/;

/** The picture's extension by content, or null when it is not JPEG, PNG or GIF. */
export async function sniffPicture(bytes: Uint8Array): Promise<PictureExt | null> {
  if (bytes.length === 0) return null;
  const t = await fileTypeFromBuffer(bytes);
  if (!t) return null;
  // An animated PNG is still a PNG to every browser.
  const ext = t.ext === 'apng' ? 'png' : t.ext;
  return ext in PICTURE_TYPES ? (ext as PictureExt) : null;
}

export class ProfilePictureStore {
  constructor(readonly dir: string) {}

  /** Store the bytes; returns the new file name. */
  async save(bytes: Uint8Array, ext: PictureExt): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const name = `${randomBytes(16).toString('hex')}.${ext}`;
    const tmp = path.join(this.dir, `.${name}.${process.pid}.tmp`);
    try {
      await writeFile(tmp, bytes, { flag: 'wx', mode: 0o644 });
      await rename(tmp, path.join(this.dir, name));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    return name;
  }

  /** Remove a stored picture; a missing file is not an error. */
  async remove(name: string | null | undefined): Promise<void> {
    if (!name || !PICTURE_FILE_PATTERN.test(name)) return;
    await unlink(path.join(this.dir, name)).catch(() => undefined);
  }

  /** Open a stored picture for serving, or null when the name is not one of ours or the file is gone. */
  async open(name: string): Promise<{ stream: ReadStream; size: number; type: string } | null> {
    if (!PICTURE_FILE_PATTERN.test(name)) return null;
    const file = path.join(this.dir, name);
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return null;
    const ext = name.slice(name.lastIndexOf('.') + 1) as PictureExt;
    return { stream: createReadStream(file), size: st.size, type: PICTURE_TYPES[ext] };
  }
}
