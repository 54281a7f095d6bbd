/** What the picture process (picture-child.ts) and the web process's side of it (picture-worker.ts) share. */
import type { PICTURE_TYPES, PictureExt } from './rules/media-name.js';

/** An upload that is not a picture sharp can read (corrupt, truncated, or not what its header says). */
export class PictureRejected extends Error {}

/** A re-encoded picture: the bytes to store and what they are. */
export interface ProcessedPicture {
  bytes: Buffer;
  ext: PictureExt;
  type: (typeof PICTURE_TYPES)[PictureExt];
  sha256: Buffer;
  width: number;
  height: number;
}
