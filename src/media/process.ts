/**
 * Re-encoding of uploaded pictures with sharp (libvips): the stored file is a fresh encoding of the
 * decoded pixels, so nothing of the upload's container survives: no EXIF (GPS location, camera
 * serial, time), XMP, IPTC, ICC comments or trailing bytes. EXIF orientation is applied to the pixels
 * first, so the picture still looks upright. The format stays what the bytes were (JPEG, PNG, GIF;
 * an animated GIF keeps its frames); pictures larger than PICTURE_MAX_SIDE are scaled down to fit.
 *
 * Before any frame is decoded, inspectPicture reads the header (size and frame count) so an upload
 * over the caps of rules/picture-limits.ts is refused without the work; decoding is bounded again
 * (limitInputPixels) so a file whose frames do not match its header cannot exhaust memory; a file
 * that does not decode is refused. The callers run both through a PicturePool (picture-pool.ts).
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { PictureRejected, type ProcessedPicture } from './picture-types.js';
import { PICTURE_TYPES, sniffPicture, type PictureExt } from './profile-pictures.js';
import { PICTURE_MAX_STILL_PIXELS, type PictureSize } from './rules/picture-limits.js';

/** Longest side of a stored profile picture, in pixels (larger uploads are scaled down). */
const PICTURE_MAX_SIDE = 1024;
/** Refuse to decode images with more pixels than this (per frame x frames for animations). */
const PICTURE_MAX_INPUT_PIXELS = PICTURE_MAX_STILL_PIXELS;

// One libvips thread per operation (each operation then holds one libuv thread and at most one core)
// and no operation cache: uploads are rare, web latency matters.
sharp.concurrency(1);
sharp.cache(false);

export { PictureRejected };

/** Width, frame height and frame count from the header of `input` (already sniffed as `ext`); no frame is decoded. */
export async function inspectPicture(input: Uint8Array, ext: PictureExt): Promise<PictureSize> {
  try {
    const m = await sharp(input, { animated: ext === 'gif', limitInputPixels: false, failOn: 'error' }).metadata();
    const frames = m.pages ?? 1;
    if (!m.width || !m.height) throw new Error('no size in the header');
    return { width: m.width, height: m.pageHeight ?? Math.round(m.height / frames), frames };
  } catch (err) {
    throw new PictureRejected(`the picture header could not be read: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Decode `input` (already sniffed as `ext`), strip everything but the pixels, re-encode. */
export async function reencodePicture(input: Uint8Array, ext: PictureExt): Promise<ProcessedPicture> {
  const animated = ext === 'gif';
  let img = sharp(input, { animated, limitInputPixels: PICTURE_MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize({ width: PICTURE_MAX_SIDE, height: PICTURE_MAX_SIDE, fit: 'inside', withoutEnlargement: true });
  if (ext === 'jpg') img = img.jpeg({ quality: 85, mozjpeg: true });
  else if (ext === 'png') img = img.png({ compressionLevel: 9 });
  else img = img.gif();
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    out = await img.toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new PictureRejected(`the picture could not be decoded: ${(err as Error).message.split('\n')[0]}`);
  }
  // The type stored and served is what the output bytes are, checked again.
  const sniffed = await sniffPicture(out.data);
  if (sniffed !== ext) throw new PictureRejected('the re-encoded picture is not of the uploaded type');
  return {
    bytes: out.data,
    ext,
    type: PICTURE_TYPES[ext],
    sha256: createHash('sha256').update(out.data).digest(),
    width: out.info.width,
    height: out.info.pageHeight ?? out.info.height,
  };
}
